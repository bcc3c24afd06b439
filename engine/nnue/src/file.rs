//! The integer network's file format: what `EvalFile` loads and what the
//! trainer exports, and what is embedded in the engine.
//!
//! All numbers are little-endian. A 92-byte header, then the weights:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `LEAPNNUE` |
//! | 8 | 4 | format version ([`FORMAT_VERSION`]) |
//! | 12 | 4 | feature set version (changes with the feature definition) |
//! | 16 | 4 | features per perspective (6,360) |
//! | 20 | 12 | L1, L2, L3 |
//! | 32 | 20 | QA, QB, QW2, QH, evaluation scale |
//! | 52 | 8 | payload length in bytes |
//! | 60 | 32 | SHA-256 of the payload |
//! | 92 | .. | payload: w1 (i16, feature-major), b1 (i16), w2 (i16, output-major), b2 (i32), w3 (i16), b3 (i32), w4 (i16), b4 (i32), psq (i32, by feature) |
//!
//! Earlier versions still load, as the network they computed:
//! - Version 2 (an 88-byte header without QW2) held the first dense
//!   layer's weights at QB and its bias at QA QB; they load multiplied by
//!   QW2 / QB = 16, which changes no output (the layer's shift grew by the
//!   same four bits), and a file whose weights do not fit i16 at the finer
//!   scale is refused by name.
//! - Version 1 is version 2 without the psq weights (the linear skip
//!   term): it loads as a network whose psq weights are zero.
//!
//! Loading names what is wrong: magic, version, a dimension, the length,
//! the hash, or a weight outside the range that keeps the sums from
//! overflowing. Saving writes a temporary file beside the target and
//! renames it, so a crash leaves the old file or the new one.

use crate::LINEAR_CLIP;
use crate::features::NUM_FEATURES;
use crate::network::{DENSE_CLIP, EVAL_SCALE, L1, L2, L3, QA, QB, QH, QW2, QuantNetwork, W1_CLIP};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// The first eight bytes of a network file.
pub const MAGIC: [u8; 8] = *b"LEAPNNUE";
/// The version of the layout above: 3 since the first dense layer's own
/// scale, QW2.
pub const FORMAT_VERSION: u32 = 3;
/// The version with the first dense layer at QB, which still loads.
const FORMAT_VERSION_W2_AT_QB: u32 = 2;
/// The version before the psq weights, which still loads.
const FORMAT_VERSION_NO_PSQ: u32 = 1;
/// The version of the feature definition in [`crate::features`]; bump it
/// when a feature's meaning changes, even if the count does not.
pub const FEATURE_SET_VERSION: u32 = 1;

/// Why a network file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum NetFileError {
    /// The file system refused. The OS error is part of the message and
    /// not also a `source`, so that a caller printing the chain (anyhow's
    /// `{:#}`) does not print it twice.
    #[error("network file i/o: {0}")]
    Io(std::io::Error),
    /// Shorter than a header.
    #[error("network file is {found} bytes long, shorter than its {header}-byte header")]
    TooShort {
        /// The file's length.
        found: usize,
        /// The header's.
        header: usize,
    },
    /// Not our file.
    #[error(
        "not a leaper network file: magic {found:?}, expected \"LEAPNNUE\" (a network) or \"LEAPLINR\" (a linear model)"
    )]
    BadMagic {
        /// The first eight bytes.
        found: [u8; 8],
    },
    /// A format version this build does not read.
    #[error("network file format version {found}; this build reads versions 1 to {expected}")]
    Version {
        /// In the file.
        found: u32,
        /// What this build reads.
        expected: u32,
    },
    /// A dimension or constant that differs from this build's network.
    #[error("network file has {field} = {found}; this build's network has {expected}")]
    Dimension {
        /// The header field.
        field: &'static str,
        /// In the file.
        found: u64,
        /// In this build.
        expected: u64,
    },
    /// The payload is not as long as the header and dimensions say.
    #[error("network file payload is {found} bytes; its dimensions need {expected}")]
    Length {
        /// Present.
        found: u64,
        /// Needed.
        expected: u64,
    },
    /// The payload does not hash to the header's hash: a damaged file.
    #[error("network file content hash mismatch (header {expected}, content {found}): the file is damaged")]
    Hash {
        /// From the header, hex.
        expected: String,
        /// Of the payload, hex.
        found: String,
    },
    /// A feature weight or bias outside the range that cannot overflow.
    #[error("network file {layer}[{index}] = {value} is outside +-{bound}")]
    WeightRange {
        /// `w1`, `b1`, `psq`, or (in a file of an earlier version, at the
        /// finer scale it loads at) `w2` or `b2`.
        layer: &'static str,
        /// Its index.
        index: usize,
        /// Its value.
        value: i32,
        /// The bound.
        bound: i32,
    },
    /// A linear model's weight outside the range the trainer clips to.
    #[error("linear model file weight[{index}] = {value} is outside +-{bound}")]
    LinearWeightRange {
        /// Its index (the last is the bias).
        index: usize,
        /// Its value.
        value: i32,
        /// The bound.
        bound: i32,
    },
}

impl From<std::io::Error> for NetFileError {
    fn from(err: std::io::Error) -> NetFileError {
        NetFileError::Io(err)
    }
}

/// The payload's length in a file of `version` (1: no psq weights) whose
/// accumulator is `l1` wide.
const fn payload_len(version: u32, l1: usize) -> usize {
    let dense = 2 * (NUM_FEATURES * l1 + l1 + L2 * 2 * l1 + L3 * L2 + L3) + 4 * (L2 + L3 + 1);
    if version == FORMAT_VERSION_NO_PSQ {
        dense
    } else {
        dense + 4 * NUM_FEATURES
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The largest feature weight or bias an integer network may hold.
const W1_BOUND: i32 = W1_CLIP as i32 * QA;
/// The largest psq weight an integer network may hold.
const PSQ_BOUND: i32 = LINEAR_CLIP as i32 * EVAL_SCALE as i32;
/// The largest first dense bias an integer network may hold: the clip at
/// its scale, which keeps the layer's sum within i32.
const B2_BOUND: i32 = DENSE_CLIP as i32 * QA * QW2;
/// What a weight of the first dense layer in a file of version 2 or 1 is
/// multiplied by to load at [`QW2`].
const W2_RESCALE: i32 = QW2 / QB;

impl QuantNetwork {
    /// The network as a file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::with_capacity(payload_len(FORMAT_VERSION, L1));
        let i16s = |out: &mut Vec<u8>, v: &[i16]| v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        let i32s = |out: &mut Vec<u8>, v: &[i32]| v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        for row in &self.w1 {
            i16s(&mut payload, row);
        }
        i16s(&mut payload, &self.b1);
        for row in self.w2.iter() {
            i16s(&mut payload, row);
        }
        i32s(&mut payload, &self.b2);
        for row in &self.w3 {
            i16s(&mut payload, row);
        }
        i32s(&mut payload, &self.b3);
        i16s(&mut payload, &self.w4);
        i32s(&mut payload, &[self.b4]);
        i32s(&mut payload, &self.psq);
        debug_assert_eq!(payload.len(), payload_len(FORMAT_VERSION, L1));

        write_frame(MAGIC, &header_values(FORMAT_VERSION, L1), &payload)
    }

    /// Reads a network from a file's bytes.
    ///
    /// A file of a narrower network (its L1 below this build's [`L1`])
    /// loads with the missing accumulator columns dead: zero feature
    /// weights, bias and first-layer weights, so they add nothing and the
    /// network computes what the file's did. That is how a wider build
    /// plays the shipped network and how the trainer widens it
    /// ([`crate::FloatNetwork::revive_dead_columns`]).
    ///
    /// # Errors
    /// A [`NetFileError`] naming the first thing that is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<QuantNetwork, NetFileError> {
        // A file of an earlier version (1 or 2) is read with its own header and
        // length; any other version is checked against the current one
        // (and refused with it).
        let version = match bytes.get(8..12) {
            Some(&[a, b, c, d]) => match u32::from_le_bytes([a, b, c, d]) {
                old @ (FORMAT_VERSION_NO_PSQ | FORMAT_VERSION_W2_AT_QB) => old,
                _ => FORMAT_VERSION,
            },
            _ => FORMAT_VERSION,
        };
        // A narrower file is read at its own width; any other width is
        // checked against this build's (and refused with it).
        let l1 = match bytes.get(20..24) {
            Some(&[a, b, c, d]) => match u32::from_le_bytes([a, b, c, d]) as usize {
                narrower @ 1..L1 => narrower,
                _ => L1,
            },
            _ => L1,
        };
        let payload = read_frame(bytes, MAGIC, &header_values(version, l1), payload_len(version, l1))?;
        let mut reader = Reader { bytes: payload, at: 0 };
        let mut net = QuantNetwork::zeros();
        for row in net.w1.iter_mut() {
            reader.i16s(&mut row[..l1]);
        }
        reader.i16s(&mut net.b1[..l1]);
        for row in net.w2.iter_mut() {
            let (stm, opp) = row.split_at_mut(L1);
            reader.i16s(&mut stm[..l1]);
            reader.i16s(&mut opp[..l1]);
        }
        reader.i32s(&mut net.b2);
        for row in net.w3.iter_mut() {
            reader.i16s(row);
        }
        reader.i32s(&mut net.b3);
        reader.i16s(&mut net.w4);
        let mut b4 = [0i32];
        reader.i32s(&mut b4);
        net.b4 = b4[0];
        if version != FORMAT_VERSION_NO_PSQ {
            reader.i32s(&mut net.psq);
        }
        net.pack();
        if version != FORMAT_VERSION {
            rescale_first_dense(&mut net)?;
        }

        check_range("w1", net.w1.as_flattened().iter().map(|&v| v.into()), W1_BOUND)?;
        check_range("b1", net.b1.iter().map(|&v| v.into()), W1_BOUND)?;
        check_range("psq", net.psq.iter().copied(), PSQ_BOUND)?;
        check_range("b2", net.b2.iter().copied(), B2_BOUND)?;
        Ok(net)
    }

    /// Writes the network to `path` atomically (a temporary file beside it,
    /// synced, then renamed).
    ///
    /// # Errors
    /// The file system's error.
    pub fn save(&self, path: &Path) -> Result<(), NetFileError> {
        write_atomically(path, &self.to_bytes())?;
        Ok(())
    }

    /// Reads a network file.
    ///
    /// # Errors
    /// The file system's error or what [`QuantNetwork::from_bytes`] finds.
    pub fn load(path: &Path) -> Result<QuantNetwork, NetFileError> {
        QuantNetwork::from_bytes(&std::fs::read(path)?)
    }
}

/// The first of a layer's `values` beyond +-`bound`, as an error.
fn check_range(layer: &'static str, values: impl Iterator<Item = i32>, bound: i32) -> Result<(), NetFileError> {
    match values
        .enumerate()
        .find(|(_, v)| v.unsigned_abs() > bound.unsigned_abs())
    {
        Some((index, value)) => Err(NetFileError::WeightRange {
            layer,
            index,
            value,
            bound,
        }),
        None => Ok(()),
    }
}

/// Multiplies the first dense layer of a network read from a file of
/// version 2 or 1 (weights at QB, bias at QA QB) by [`W2_RESCALE`], to
/// this build's scales: the layer's sums grow by that factor and its
/// shift by as many bits, so every output stays what it was.
///
/// # Errors
/// [`NetFileError::WeightRange`] for the first weight (in the layer's
/// rows, output-major) that does not fit i16 at the finer scale, or bias
/// beyond [`B2_BOUND`].
fn rescale_first_dense(net: &mut QuantNetwork) -> Result<(), NetFileError> {
    let bound = i32::from(i16::MAX) / W2_RESCALE;
    for (index, w) in net.w2.as_flattened_mut().iter_mut().enumerate() {
        let scaled = i32::from(*w) * W2_RESCALE;
        *w = i16::try_from(scaled).map_err(|_| NetFileError::WeightRange {
            layer: "w2",
            index,
            value: (*w).into(),
            bound,
        })?;
    }
    for (index, b) in net.b2.iter_mut().enumerate() {
        *b = b
            .checked_mul(W2_RESCALE)
            .filter(|v| v.unsigned_abs() <= B2_BOUND as u32)
            .ok_or(NetFileError::WeightRange {
                layer: "b2",
                index,
                value: *b,
                bound: B2_BOUND / W2_RESCALE,
            })?;
    }
    Ok(())
}

/// The header's u32 fields after the magic, in order, with their names,
/// for a file of format `version` and accumulator width `l1`: QW2 is
/// there from version 3 on.
fn header_values(version: u32, l1: usize) -> Vec<(&'static str, u32)> {
    let mut fields = vec![
        ("format version", version),
        ("feature set version", FEATURE_SET_VERSION),
        ("features", NUM_FEATURES as u32),
        ("L1", l1 as u32),
        ("L2", L2 as u32),
        ("L3", L3 as u32),
        ("QA", QA as u32),
        ("QB", QB as u32),
    ];
    if version >= FORMAT_VERSION {
        fields.push(("QW2", QW2 as u32));
    }
    fields.extend([("QH", QH as u32), ("evaluation scale", EVAL_SCALE as u32)]);
    fields
}

/// A file's frame around its payload: the magic, the header's u32 fields
/// (`header[0]` is the format version), the payload's length (u64), the
/// payload's SHA-256, then the payload. Shared by the network's and the
/// linear model's files.
pub(crate) fn write_frame(magic: [u8; 8], header: &[(&'static str, u32)], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame_header_len(header) + payload.len());
    out.extend_from_slice(&magic);
    for (_, v) in header {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(payload));
    out.extend_from_slice(payload);
    out
}

/// The payload of a frame written by [`write_frame`], after checking, in
/// order: the length against the header's, the magic, the format version
/// (`header[0]`), the other header fields, the declared and present payload
/// lengths against `expected_len`, and the hash.
///
/// # Errors
/// A [`NetFileError`] naming the first thing that is wrong.
pub(crate) fn read_frame<'a>(
    bytes: &'a [u8],
    magic: [u8; 8],
    header: &[(&'static str, u32)],
    expected_len: usize,
) -> Result<&'a [u8], NetFileError> {
    let header_len = frame_header_len(header);
    let len_at = 8 + 4 * header.len();
    let hash_at = len_at + 8;
    if bytes.len() < header_len {
        return Err(NetFileError::TooShort {
            found: bytes.len(),
            header: header_len,
        });
    }
    let u32_at = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let mut found_magic = [0u8; 8];
    found_magic.copy_from_slice(&bytes[..8]);
    if found_magic != magic {
        return Err(NetFileError::BadMagic { found: found_magic });
    }
    for (i, &(field, expected)) in header.iter().enumerate() {
        let found = u32_at(8 + 4 * i);
        if found == expected {
            continue;
        }
        return Err(if i == 0 {
            NetFileError::Version { found, expected }
        } else {
            NetFileError::Dimension {
                field,
                found: found.into(),
                expected: expected.into(),
            }
        });
    }
    let mut len = [0u8; 8];
    len.copy_from_slice(&bytes[len_at..hash_at]);
    let declared = u64::from_le_bytes(len);
    let present = (bytes.len() - header_len) as u64;
    let expected = expected_len as u64;
    if declared != expected {
        return Err(NetFileError::Dimension {
            field: "payload length",
            found: declared,
            expected,
        });
    }
    if present != expected {
        return Err(NetFileError::Length {
            found: present,
            expected,
        });
    }
    let payload = &bytes[header_len..];
    let hash = Sha256::digest(payload);
    if hash.as_slice() != &bytes[hash_at..header_len] {
        return Err(NetFileError::Hash {
            expected: hex(&bytes[hash_at..header_len]),
            found: hex(&hash),
        });
    }
    Ok(payload)
}

/// The length of a frame's header: magic, u32 fields, length, hash.
const fn frame_header_len(header: &[(&'static str, u32)]) -> usize {
    8 + 4 * header.len() + 8 + 32
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    // The length was checked against the dimensions before reading.
    fn i16s(&mut self, out: &mut [i16]) {
        for (x, b) in out.iter_mut().zip(self.bytes[self.at..].chunks_exact(2)) {
            *x = i16::from_le_bytes([b[0], b[1]]);
        }
        self.at += 2 * out.len();
    }

    fn i32s(&mut self, out: &mut [i32]) {
        for (x, b) in out.iter_mut().zip(self.bytes[self.at..].chunks_exact(4)) {
            *x = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        self.at += 4 * out.len();
    }
}

/// Writes `bytes` to a temporary file beside `path`, syncs it and renames
/// it over `path`: readers see the old content or the new, never a part.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
