//! The data file: a 16-byte header, then chunks of fixed-size records,
//! each chunk with its own checksums, so that an append cut short by a
//! crash or kill -9 is recognised and dropped while damage anywhere else
//! is an error naming the chunk.
//!
//! Header (little-endian): the magic `LEAPDATA`, the format version
//! (`u16`, [`VERSION`]), the record size (`u16`, [`RECORD_SIZE`]), four
//! zero bytes. A new file is written under a temporary name and renamed,
//! so a file either has its whole header or does not exist.
//!
//! Chunk: the magic `LDCK`, the record count (`u32`, 1 to
//! [`MAX_CHUNK_RECORDS`]), the CRC-32 of the records, the CRC-32 of the
//! preceding 12 bytes, then the records. A writer appends each chunk with
//! one write and syncs it. A chunk that fails its checks is the file's
//! torn tail when no valid chunk header follows it (a write cut short
//! leaves nothing after it); otherwise the file is damaged.

use super::record::{RECORD_SIZE, Record, RecordError};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The format version this code reads and writes.
pub const VERSION: u16 = 1;
/// Bytes of the file header.
pub const HEADER_SIZE: u64 = 16;
/// Bytes of a chunk header.
pub const CHUNK_HEADER_SIZE: u64 = 16;
/// The most records in one chunk.
pub const MAX_CHUNK_RECORDS: u32 = 1 << 16;

const MAGIC: &[u8; 8] = b"LEAPDATA";
const CHUNK_MAGIC: &[u8; 4] = b"LDCK";

/// Why a data file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The operating system failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file does not start with the magic.
    #[error("{} is not a leaper data file (it does not start with LEAPDATA)", path.display())]
    NotDataFile {
        /// The file.
        path: PathBuf,
    },
    /// A version this code does not read.
    #[error("{}: format version {found}, this build reads version {VERSION}", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// The version found.
        found: u16,
    },
    /// A record size other than this version's.
    #[error("{}: records of {found} bytes, version {VERSION} has {RECORD_SIZE}", path.display())]
    RecordSize {
        /// The file.
        path: PathBuf,
        /// The size found.
        found: u16,
    },
    /// A chunk in the middle of the file fails its checks.
    #[error("{}: chunk {chunk} (at byte offset {offset}) is damaged: {reason}", path.display())]
    DamagedChunk {
        /// The file.
        path: PathBuf,
        /// The chunk's index, from 0.
        chunk: u64,
        /// Where it starts.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A chunk whose checksum holds but whose record is not valid.
    #[error("{}: record {record} of chunk {chunk} (at byte offset {offset}): {source}", path.display())]
    BadRecord {
        /// The file.
        path: PathBuf,
        /// The chunk's index.
        chunk: u64,
        /// The record's index in the chunk.
        record: u32,
        /// Where the record starts.
        offset: u64,
        /// What is wrong with it.
        source: RecordError,
    },
    /// A record whose pieces make no position of the game.
    #[error("{}: record {index} (from 0): {source}", path.display())]
    BadSample {
        /// The file.
        path: PathBuf,
        /// The record's index in the file.
        index: u64,
        /// What is wrong with it.
        source: RecordError,
    },
    /// A new file's path is taken.
    #[error("{} already exists", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
}

/// The end of a file cut short by a crash: what a reader ignores and a
/// resuming writer truncates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// The file.
    pub path: PathBuf,
    /// Where the torn chunk starts: the file's valid length.
    pub offset: u64,
    /// Bytes from there to the end.
    pub bytes: u64,
    /// What was wrong with it.
    pub reason: String,
}

impl std::fmt::Display for TornTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: dropped a torn tail of {} bytes at byte offset {} ({})",
            self.path.display(),
            self.bytes,
            self.offset,
            self.reason
        )
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn header_bytes() -> [u8; HEADER_SIZE as usize] {
    let mut h = [0u8; HEADER_SIZE as usize];
    h[0..8].copy_from_slice(MAGIC);
    h[8..10].copy_from_slice(&VERSION.to_le_bytes());
    h[10..12].copy_from_slice(&(RECORD_SIZE as u16).to_le_bytes());
    h
}

fn check_header(path: &Path, h: &[u8]) -> Result<(), DataError> {
    if h.len() < HEADER_SIZE as usize || &h[0..8] != MAGIC {
        return Err(DataError::NotDataFile {
            path: path.to_path_buf(),
        });
    }
    let version = u16::from_le_bytes([h[8], h[9]]);
    if version != VERSION {
        return Err(DataError::Version {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let size = u16::from_le_bytes([h[10], h[11]]);
    if usize::from(size) != RECORD_SIZE {
        return Err(DataError::RecordSize {
            path: path.to_path_buf(),
            found: size,
        });
    }
    Ok(())
}

fn chunk_header(count: u32, payload: &[u8]) -> [u8; CHUNK_HEADER_SIZE as usize] {
    let mut h = [0u8; CHUNK_HEADER_SIZE as usize];
    h[0..4].copy_from_slice(CHUNK_MAGIC);
    h[4..8].copy_from_slice(&count.to_le_bytes());
    h[8..12].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    let own = crc32fast::hash(&h[0..12]);
    h[12..16].copy_from_slice(&own.to_le_bytes());
    h
}

/// The record count of a chunk header, if the header is valid.
fn parse_chunk_header(h: &[u8]) -> Result<(u32, u32), String> {
    if &h[0..4] != CHUNK_MAGIC {
        return Err("no chunk magic".into());
    }
    let own = u32::from_le_bytes([h[12], h[13], h[14], h[15]]);
    if crc32fast::hash(&h[0..12]) != own {
        return Err("chunk header checksum mismatch".into());
    }
    let count = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
    if count == 0 || count > MAX_CHUNK_RECORDS {
        return Err(format!("record count {count} out of range"));
    }
    Ok((count, u32::from_le_bytes([h[8], h[9], h[10], h[11]])))
}

/// Reads a data file chunk by chunk. A torn tail ends the iteration and is
/// kept in [`Reader::torn_tail`]; any other damage is an error item, after
/// which the iteration ends.
#[derive(Debug)]
pub struct Reader {
    path: PathBuf,
    file: BufReader<File>,
    len: u64,
    offset: u64,
    chunk: u64,
    torn: Option<TornTail>,
    done: bool,
}

/// One chunk's records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// The chunk's index, from 0.
    pub index: u64,
    /// Where it starts in the file.
    pub offset: u64,
    /// Its records.
    pub records: Vec<Record>,
}

impl Reader {
    /// Opens `path` and checks its header.
    ///
    /// # Errors
    /// [`DataError`] when the file cannot be read or is not a data file
    /// of this version.
    pub fn open(path: impl AsRef<Path>) -> Result<Reader, DataError> {
        let path = path.as_ref();
        let mut file = File::open(path).map_err(io_err(path))?;
        let len = file.metadata().map_err(io_err(path))?.len();
        let mut h = [0u8; HEADER_SIZE as usize];
        let got = read_full(&mut file, &mut h).map_err(io_err(path))?;
        check_header(path, &h[..got])?;
        Ok(Reader {
            path: path.to_path_buf(),
            file: BufReader::with_capacity(1 << 16, file),
            len,
            offset: HEADER_SIZE,
            chunk: 0,
            torn: None,
            done: false,
        })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The torn tail met, once the iteration has reached it.
    pub fn torn_tail(&self) -> Option<&TornTail> {
        self.torn.as_ref()
    }

    /// Bytes of valid chunks read so far, header included: where an
    /// append goes once the whole file has been read.
    pub fn valid_len(&self) -> u64 {
        self.offset
    }

    /// The next chunk, `None` at the end or at a torn tail.
    ///
    /// # Errors
    /// [`DataError::DamagedChunk`] for a bad chunk that is not the tail,
    /// [`DataError::BadRecord`] for a record that fails its checks,
    /// [`DataError::Io`].
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, DataError> {
        if self.done {
            return Ok(None);
        }
        let result = self.read_chunk();
        if !matches!(result, Ok(Some(_))) {
            self.done = true;
        }
        result
    }

    fn read_chunk(&mut self) -> Result<Option<Chunk>, DataError> {
        let start = self.offset;
        if start >= self.len {
            return Ok(None);
        }
        let mut h = [0u8; CHUNK_HEADER_SIZE as usize];
        let got = read_full(&mut self.file, &mut h).map_err(io_err(&self.path))?;
        if got < h.len() {
            return self.bad_chunk(start, "the file ends inside a chunk header".into());
        }
        let (count, crc) = match parse_chunk_header(&h) {
            Ok(v) => v,
            Err(reason) => return self.bad_chunk(start, reason),
        };
        let mut payload = vec![0u8; count as usize * RECORD_SIZE];
        let got = read_full(&mut self.file, &mut payload).map_err(io_err(&self.path))?;
        if got < payload.len() {
            return self.bad_chunk(
                start,
                format!("the file ends {} bytes into a chunk of {count} records", got),
            );
        }
        if crc32fast::hash(&payload) != crc {
            return self.bad_chunk(start, "record checksum mismatch".into());
        }
        let mut records = Vec::with_capacity(count as usize);
        for (i, bytes) in payload.chunks_exact(RECORD_SIZE).enumerate() {
            let bytes: &[u8; RECORD_SIZE] = bytes.try_into().unwrap_or(&[0; RECORD_SIZE]);
            let record = Record::decode(bytes).map_err(|source| DataError::BadRecord {
                path: self.path.clone(),
                chunk: self.chunk,
                record: i as u32,
                offset: start + CHUNK_HEADER_SIZE + (i * RECORD_SIZE) as u64,
                source,
            })?;
            records.push(record);
        }
        self.offset = start + CHUNK_HEADER_SIZE + payload.len() as u64;
        let index = self.chunk;
        self.chunk += 1;
        Ok(Some(Chunk {
            index,
            offset: start,
            records,
        }))
    }

    /// A chunk at `start` failed: the torn tail when no valid chunk header
    /// follows it, else damage.
    fn bad_chunk(&mut self, start: u64, reason: String) -> Result<Option<Chunk>, DataError> {
        let mut rest = Vec::new();
        let file = self.file.get_mut();
        file.seek(SeekFrom::Start(start + 1)).map_err(io_err(&self.path))?;
        file.read_to_end(&mut rest).map_err(io_err(&self.path))?;
        let later = rest
            .windows(CHUNK_HEADER_SIZE as usize)
            .position(|w| parse_chunk_header(w).is_ok());
        match later {
            Some(at) => Err(DataError::DamagedChunk {
                path: self.path.clone(),
                chunk: self.chunk,
                offset: start,
                reason: format!(
                    "{reason}; a valid chunk follows at byte offset {}",
                    start + 1 + at as u64
                ),
            }),
            None => {
                self.torn = Some(TornTail {
                    path: self.path.clone(),
                    offset: start,
                    bytes: self.len - start,
                    reason,
                });
                Ok(None)
            }
        }
    }

    /// Every record, chunk after chunk.
    pub fn records(self) -> Records {
        Records {
            reader: self,
            chunk: Vec::new().into_iter(),
        }
    }
}

/// Iterator over a file's records (see [`Reader::records`]).
#[derive(Debug)]
pub struct Records {
    reader: Reader,
    chunk: std::vec::IntoIter<Record>,
}

impl Records {
    /// The reader, e.g. to ask for its torn tail at the end.
    pub fn reader(&self) -> &Reader {
        &self.reader
    }
}

impl Iterator for Records {
    type Item = Result<Record, DataError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.chunk.next() {
                return Some(Ok(r));
            }
            match self.reader.next_chunk() {
                Ok(Some(c)) => self.chunk = c.records.into_iter(),
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// What an existing file held when a writer reopened it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Existing {
    /// Records in its valid chunks.
    pub records: u64,
    /// Its valid chunks.
    pub chunks: u64,
    /// One past the highest game index recorded (0 for none).
    pub next_game: u64,
    /// The torn tail truncated, if there was one.
    pub torn: Option<TornTail>,
}

/// Appends chunks to a data file.
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    file: File,
    records: u64,
    chunks: u64,
}

impl Writer {
    /// Creates a new file at `path` (its header written atomically).
    ///
    /// # Errors
    /// [`DataError::Exists`] when the path is taken, [`DataError::Io`].
    pub fn create(path: impl AsRef<Path>) -> Result<Writer, DataError> {
        let path = path.as_ref();
        if path.exists() {
            return Err(DataError::Exists {
                path: path.to_path_buf(),
            });
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        {
            let mut f = File::create(&tmp).map_err(io_err(&tmp))?;
            f.write_all(&header_bytes()).map_err(io_err(&tmp))?;
            f.sync_all().map_err(io_err(&tmp))?;
        }
        std::fs::rename(&tmp, path).map_err(io_err(path))?;
        let file = OpenOptions::new().append(true).open(path).map_err(io_err(path))?;
        Ok(Writer {
            path: path.to_path_buf(),
            file,
            records: 0,
            chunks: 0,
        })
    }

    /// Reopens an existing file for appending: reads it whole, truncates a
    /// torn tail, and reports what it holds.
    ///
    /// # Errors
    /// [`DataError`] when it is not a valid data file of this version or
    /// is damaged before its tail.
    pub fn resume(path: impl AsRef<Path>) -> Result<(Writer, Existing), DataError> {
        let path = path.as_ref();
        let mut reader = Reader::open(path)?;
        let mut existing = Existing::default();
        while let Some(chunk) = reader.next_chunk()? {
            existing.chunks += 1;
            existing.records += chunk.records.len() as u64;
            if let Some(max) = chunk.records.iter().map(|r| u64::from(r.game) + 1).max() {
                existing.next_game = existing.next_game.max(max);
            }
        }
        existing.torn = reader.torn_tail().cloned();
        let valid = reader.valid_len();
        drop(reader);
        let file = OpenOptions::new().append(true).open(path).map_err(io_err(path))?;
        if existing.torn.is_some() {
            file.set_len(valid).map_err(io_err(path))?;
            file.sync_all().map_err(io_err(path))?;
        }
        Ok((
            Writer {
                path: path.to_path_buf(),
                file,
                records: existing.records,
                chunks: existing.chunks,
            },
            existing,
        ))
    }

    /// [`Writer::resume`] when `path` exists, else [`Writer::create`].
    ///
    /// # Errors
    /// As those.
    pub fn open(path: impl AsRef<Path>) -> Result<(Writer, Existing), DataError> {
        let path = path.as_ref();
        if path.exists() {
            Writer::resume(path)
        } else {
            Ok((Writer::create(path)?, Existing::default()))
        }
    }

    /// Appends `records` as chunks (one write and a sync each, at most
    /// [`MAX_CHUNK_RECORDS`] records apiece).
    ///
    /// # Errors
    /// [`DataError::Io`].
    pub fn write_chunk(&mut self, records: &[Record]) -> Result<(), DataError> {
        for part in records.chunks(MAX_CHUNK_RECORDS as usize) {
            let mut payload = Vec::with_capacity(part.len() * RECORD_SIZE);
            for r in part {
                payload.extend_from_slice(&r.encode());
            }
            let mut bytes = Vec::with_capacity(CHUNK_HEADER_SIZE as usize + payload.len());
            bytes.extend_from_slice(&chunk_header(part.len() as u32, &payload));
            bytes.extend_from_slice(&payload);
            self.file.write_all(&bytes).map_err(io_err(&self.path))?;
            self.file.sync_data().map_err(io_err(&self.path))?;
            self.records += part.len() as u64;
            self.chunks += 1;
        }
        Ok(())
    }

    /// Records in the file.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Chunks in the file.
    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}
