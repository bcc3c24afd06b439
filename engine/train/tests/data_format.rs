//! The data file format on real files: records round-trip through writer
//! and reader, a torn tail is dropped (and truncated by a resuming
//! writer), damage before the tail is an error naming the chunk, and
//! files of another kind or version are refused.

use leaper_rules::{MoveList, Position, Setup};
use leaper_train::data::{
    CHUNK_HEADER_SIZE, DataError, GameResult, HEADER_SIZE, Opening, PackedPosition, RECORD_SIZE, Reader, Record,
    Writer, samples,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

/// `n` records from random games, with varied labels.
fn records(n: usize, seed: u64) -> Vec<Record> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    let mut game = 0;
    while out.len() < n {
        let mut pos = Position::from_setups(&Setup::random(&mut rng), &Setup::random(&mut rng));
        while pos.outcome().is_none() && out.len() < n {
            out.push(Record {
                position: PackedPosition::from_position(&pos),
                score: rng.random_range(-60_000..60_000),
                result: [GameResult::Loss, GameResult::Draw, GameResult::Win][rng.random_range(0..3)],
                game,
                opening: if game % 2 == 0 { Opening::Random } else { Opening::Book },
            });
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            pos.play(list.as_slice()[rng.random_range(0..list.len())]);
        }
        game += 1;
    }
    out
}

fn read_all(path: &Path) -> (Vec<Record>, Reader) {
    let mut reader = Reader::open(path).unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk().unwrap() {
        out.extend(chunk.records);
    }
    (out, reader)
}

/// A file of three chunks (100, 50 and 30 records) and its records.
fn three_chunks(dir: &Path) -> (std::path::PathBuf, Vec<Record>) {
    let path = dir.join("d.bin");
    let recs = records(180, 3);
    let mut w = Writer::create(&path).unwrap();
    w.write_chunk(&recs[..100]).unwrap();
    w.write_chunk(&recs[100..150]).unwrap();
    w.write_chunk(&recs[150..]).unwrap();
    assert_eq!((w.records(), w.chunks()), (180, 3));
    (path, recs)
}

/// Byte offset of chunk `i` of [`three_chunks`].
fn chunk_offset(i: usize) -> u64 {
    let sizes = [100u64, 50, 30];
    HEADER_SIZE
        + sizes[..i]
            .iter()
            .map(|n| CHUNK_HEADER_SIZE + n * RECORD_SIZE as u64)
            .sum::<u64>()
}

#[test]
fn records_round_trip_through_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, recs) = three_chunks(dir.path());
    assert_eq!(std::fs::metadata(&path).unwrap().len(), chunk_offset(3));
    let (back, reader) = read_all(&path);
    assert_eq!(back, recs);
    assert!(reader.torn_tail().is_none());
    // The trainer's view: decoded positions with their labels.
    let mut n = 0;
    for (sample, rec) in samples(&path).unwrap().zip(&recs) {
        let s = sample.unwrap();
        assert_eq!(s.position.to_fen(), rec.position.to_fen());
        assert_eq!(
            (s.score, s.result, s.ply, s.game),
            (rec.score, rec.result, rec.position.ply(), rec.game)
        );
        n += 1;
    }
    assert_eq!(n, 180);
}

#[test]
fn a_torn_tail_is_dropped_and_a_resuming_writer_truncates_it() {
    let dir = tempfile::tempdir().unwrap();
    let (path, recs) = three_chunks(dir.path());
    // Cut the last chunk short, as a kill in the middle of a write would.
    let full = std::fs::metadata(&path).unwrap().len();
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(full - 7)
        .unwrap();
    let (back, reader) = read_all(&path);
    assert_eq!(back, recs[..150]);
    let torn = reader.torn_tail().expect("a torn tail");
    assert_eq!(torn.offset, chunk_offset(2));
    assert_eq!(torn.bytes, full - 7 - chunk_offset(2));
    let message = torn.to_string();
    assert!(
        message.contains("d.bin") && message.contains(&format!("offset {}", chunk_offset(2))),
        "{message}"
    );

    let (mut w, existing) = Writer::resume(&path).unwrap();
    assert_eq!((existing.records, existing.chunks), (150, 2));
    assert_eq!(existing.next_game, u64::from(recs[149].game) + 1);
    assert_eq!(existing.torn.as_ref().map(|t| t.offset), Some(chunk_offset(2)));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), chunk_offset(2));
    w.write_chunk(&recs[150..]).unwrap();
    drop(w);
    let (back, reader) = read_all(&path);
    assert_eq!(back, recs);
    assert!(reader.torn_tail().is_none());
}

#[test]
fn trailing_garbage_and_a_cut_header_are_torn_tails() {
    let dir = tempfile::tempdir().unwrap();
    let (path, recs) = three_chunks(dir.path());
    // Zeros after the last chunk (a file extended but never written).
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&[0u8; 300])
        .unwrap();
    let (back, reader) = read_all(&path);
    assert_eq!(back, recs);
    assert_eq!(
        reader.torn_tail().map(|t| (t.offset, t.bytes)),
        Some((chunk_offset(3), 300))
    );
    // Half a chunk header.
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(chunk_offset(3) + 5)
        .unwrap();
    let (back, reader) = read_all(&path);
    assert_eq!(back.len(), 180);
    assert_eq!(reader.torn_tail().map(|t| t.offset), Some(chunk_offset(3)));
    // A complete last chunk whose records no longer match its checksum.
    OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(chunk_offset(3))
        .unwrap();
    flip_byte(&path, chunk_offset(2) + CHUNK_HEADER_SIZE + 40);
    let (back, reader) = read_all(&path);
    assert_eq!(back.len(), 150);
    assert!(reader.torn_tail().unwrap().reason.contains("checksum"));
}

fn flip_byte(path: &Path, at: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at as usize] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn a_damaged_middle_chunk_is_an_error_naming_it() {
    for (what, at) in [
        (
            "records",
            chunk_offset(1) + CHUNK_HEADER_SIZE + 3 * RECORD_SIZE as u64 + 5,
        ),
        ("header count", chunk_offset(1) + 4),
        ("magic", chunk_offset(1)),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = three_chunks(dir.path());
        flip_byte(&path, at);
        let mut reader = Reader::open(&path).unwrap();
        assert_eq!(reader.next_chunk().unwrap().unwrap().records.len(), 100);
        match reader.next_chunk() {
            Err(e @ DataError::DamagedChunk { chunk: 1, offset, .. }) => {
                assert_eq!(offset, chunk_offset(1), "{what}");
                let text = e.to_string();
                assert!(text.contains("d.bin") && text.contains("chunk 1"), "{what}: {text}");
            }
            other => panic!("{what}: expected chunk 1 damaged, got {other:?}"),
        }
        assert!(reader.next_chunk().unwrap().is_none(), "{what}: the reader stops");
        // The record iterator and a resuming writer refuse it too.
        assert!(Reader::open(&path).unwrap().records().any(|r| r.is_err()), "{what}");
        assert!(
            matches!(Writer::resume(&path), Err(DataError::DamagedChunk { chunk: 1, .. })),
            "{what}"
        );
    }
}

#[test]
fn other_files_and_versions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello, these are not positions").unwrap();
    assert!(matches!(Reader::open(&text), Err(DataError::NotDataFile { .. })));
    assert!(matches!(Writer::resume(&text), Err(DataError::NotDataFile { .. })));
    assert!(matches!(Writer::create(&text), Err(DataError::Exists { .. })));
    let (path, _) = three_chunks(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[8] = 9;
    std::fs::write(&path, &bytes).unwrap();
    let err = Reader::open(&path).unwrap_err();
    assert!(matches!(err, DataError::Version { found: 9, .. }), "{err}");
    assert!(err.to_string().contains("version 9"));
    bytes[8] = 1;
    bytes[10] = 40;
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(
        Reader::open(&path),
        Err(DataError::RecordSize { found: 40, .. })
    ));
}

#[test]
fn an_invalid_record_under_a_valid_checksum_is_named() {
    // A writer bug (a record that decodes to no piece) is caught even
    // though the chunk's checksum holds.
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = three_chunks(dir.path());
    let at = chunk_offset(1) + CHUNK_HEADER_SIZE + 2 * RECORD_SIZE as u64;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at as usize] = 0xff;
    let start = (chunk_offset(1) + CHUNK_HEADER_SIZE) as usize;
    let crc = crc32fast::hash(&bytes[start..start + 50 * RECORD_SIZE]);
    let h = chunk_offset(1) as usize;
    bytes[h + 8..h + 12].copy_from_slice(&crc.to_le_bytes());
    let own = crc32fast::hash(&bytes[h..h + 12]);
    bytes[h + 12..h + 16].copy_from_slice(&own.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let mut reader = Reader::open(&path).unwrap();
    reader.next_chunk().unwrap();
    match reader.next_chunk() {
        Err(DataError::BadRecord {
            chunk: 1,
            record: 2,
            offset,
            ..
        }) => assert_eq!(offset, at),
        other => panic!("expected record 2 of chunk 1, got {other:?}"),
    }
}
