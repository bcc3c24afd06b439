//! Engines that are directories of files. An engine whose program lies
//! inside its working directory (`dir=D cmd=D/bin/engine`) is stored in
//! the database as one pack of D's files, so that its data files (a net,
//! a book) travel with it. The pack is canonical: files in byte order of
//! their relative paths, each with its path, executable bit and length,
//! so the same tree always gives the same bytes and so the same SHA-256,
//! and renaming or moving a file changes the hash. A worker unpacks it
//! into its cache under the hash, and packs the cached tree again before
//! every batch: what runs is what was stored.

use std::path::{Component, Path, PathBuf};

/// The first bytes of a pack: it says what the stored bytes are.
const MAGIC: &[u8] = b"leaper-engine-dir 1\n";

/// Why a directory cannot be packed or a pack unpacked.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// A file or directory that cannot be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The path.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// Something a pack cannot hold (a symbolic link, a path that is not
    /// UTF-8).
    #[error("{path}: {reason}")]
    Unsupported {
        /// The path.
        path: String,
        /// Why.
        reason: &'static str,
    },
    /// Bytes that are not a pack, or a pack with a bad entry.
    #[error("not an engine directory pack: {0}")]
    Corrupt(String),
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> PackError + '_ {
    move |e| PackError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// The regular files under `dir`, as (relative path with `/`, absolute
/// path), in byte order of the relative paths.
fn files_of(dir: &Path) -> Result<Vec<(String, PathBuf)>, PackError> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).map_err(io_err(&at))? {
            let entry = entry.map_err(io_err(&at))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(io_err(&path))?;
            if kind.is_dir() {
                todo.push(path);
            } else if kind.is_file() {
                let relative = path.strip_prefix(dir).unwrap_or(&path);
                let text = relative
                    .components()
                    .map(|c| c.as_os_str().to_str())
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| PackError::Unsupported {
                        path: path.display().to_string(),
                        reason: "its name is not UTF-8",
                    })?
                    .join("/");
                found.push((text, path));
            } else {
                return Err(PackError::Unsupported {
                    path: path.display().to_string(),
                    reason: "an engine directory may hold only files and directories (no links)",
                });
            }
        }
    }
    found.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(found)
}

/// The canonical pack of the files under `dir`.
///
/// # Errors
/// [`PackError`]: an unreadable file, a link, a name that is not UTF-8.
pub fn pack_dir(dir: &Path) -> Result<Vec<u8>, PackError> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = MAGIC.to_vec();
    for (name, path) in files_of(dir)? {
        let bytes = std::fs::read(&path).map_err(io_err(&path))?;
        let mode = std::fs::metadata(&path).map_err(io_err(&path))?.permissions().mode();
        let exec = if mode & 0o111 != 0 { b'x' } else { b'-' };
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out.push(exec);
        out.extend_from_slice(format!("{}\n", bytes.len()).as_bytes());
        out.extend_from_slice(&bytes);
    }
    Ok(out)
}

/// Whether `bytes` are a pack (rather than a single program).
#[must_use]
pub fn is_pack(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// One file of a pack: its relative path, executable bit and contents.
struct Entry<'a> {
    name: &'a str,
    exec: bool,
    bytes: &'a [u8],
}

/// The entries of `pack`, checked: relative paths without `..`.
fn entries(pack: &[u8]) -> Result<Vec<Entry<'_>>, PackError> {
    let corrupt = |what: String| PackError::Corrupt(what);
    let mut rest = pack
        .strip_prefix(MAGIC)
        .ok_or_else(|| corrupt("it does not start with the pack header".to_owned()))?;
    let mut list = Vec::new();
    while !rest.is_empty() {
        let nul = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| corrupt("an entry without its name's end".to_owned()))?;
        let name =
            std::str::from_utf8(&rest[..nul]).map_err(|_| corrupt("an entry whose name is not UTF-8".to_owned()))?;
        let safe = !name.is_empty() && Path::new(name).components().all(|c| matches!(c, Component::Normal(_)));
        if !safe {
            return Err(corrupt(format!(
                "entry {name:?} is not a relative path inside the directory"
            )));
        }
        let exec = match rest.get(nul + 1) {
            Some(b'x') => true,
            Some(b'-') => false,
            _ => return Err(corrupt(format!("entry {name:?} has no mode"))),
        };
        let after = &rest[nul + 2..];
        let newline = after
            .iter()
            .position(|&b| b == b'\n')
            .ok_or_else(|| corrupt(format!("entry {name:?} has no length")))?;
        let len: usize = std::str::from_utf8(&after[..newline])
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| corrupt(format!("entry {name:?} has a bad length")))?;
        let body = &after[newline + 1..];
        if body.len() < len {
            return Err(corrupt(format!("entry {name:?} is cut short")));
        }
        list.push(Entry {
            name,
            exec,
            bytes: &body[..len],
        });
        rest = &body[len..];
    }
    Ok(list)
}

/// Writes the files of `pack` under `dir` (created; it should be new).
///
/// # Errors
/// [`PackError::Corrupt`] for bytes that are not a pack or an entry that
/// would land outside `dir`; [`PackError::Io`] when a file cannot be
/// written.
pub fn unpack(pack: &[u8], dir: &Path) -> Result<(), PackError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let list = entries(pack)?;
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    for entry in list {
        let path = dir.join(entry.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if entry.exec { 0o755 } else { 0o644 })
            .open(&path)
            .map_err(io_err(&path))?;
        file.write_all(entry.bytes).map_err(io_err(&path))?;
        file.sync_all().map_err(io_err(&path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("leaper-pack-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn write(path: &Path, text: &str, exec: bool) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        let mode = if exec { 0o755 } else { 0o644 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn a_tree_packs_the_same_whatever_order_it_was_written_in_and_unpacks_to_itself() {
        let a = scratch("order-a");
        write(&a.join("bin/engine"), "#!/bin/sh\n", true);
        write(&a.join("net.bin"), "weights", false);
        write(&a.join("b/c.txt"), "", false);
        let b = scratch("order-b");
        write(&b.join("net.bin"), "weights", false);
        write(&b.join("b/c.txt"), "", false);
        write(&b.join("bin/engine"), "#!/bin/sh\n", true);
        let pack = pack_dir(&a).unwrap();
        assert!(is_pack(&pack));
        assert_eq!(pack, pack_dir(&b).unwrap());
        let names: Vec<&str> = entries(&pack).unwrap().iter().map(|e| e.name).collect();
        assert_eq!(names, ["b/c.txt", "bin/engine", "net.bin"]);
        let c = scratch("order-c").join("copy");
        unpack(&pack, &c).unwrap();
        assert_eq!(pack_dir(&c).unwrap(), pack, "the unpacked tree packs to the same bytes");
        assert_eq!(std::fs::read_to_string(c.join("net.bin")).unwrap(), "weights");
        for dir in [a, b, c.parent().unwrap().to_path_buf()] {
            std::fs::remove_dir_all(dir).unwrap();
        }
    }

    #[test]
    fn paths_and_modes_are_part_of_the_pack() {
        let a = scratch("paths");
        write(&a.join("x"), "same", false);
        let one = pack_dir(&a).unwrap();
        std::fs::rename(a.join("x"), a.join("y")).unwrap();
        let renamed = pack_dir(&a).unwrap();
        assert_ne!(one, renamed, "a renamed file changes the pack");
        write(&a.join("y"), "same", true);
        assert_ne!(renamed, pack_dir(&a).unwrap(), "the executable bit changes the pack");
        std::fs::remove_dir_all(a).unwrap();
    }

    #[test]
    fn a_pack_cannot_write_outside_its_directory_and_bad_bytes_are_named() {
        let dir = scratch("escape");
        let mut evil = MAGIC.to_vec();
        evil.extend_from_slice(b"../evil\0-4\nboom");
        let error = unpack(&evil, &dir.join("out")).unwrap_err().to_string();
        assert!(error.contains("\"../evil\" is not a relative path"), "{error}");
        assert!(!dir.join("evil").exists());
        let mut short = MAGIC.to_vec();
        short.extend_from_slice(b"a\0-10\nabc");
        assert!(
            unpack(&short, &dir.join("out2"))
                .unwrap_err()
                .to_string()
                .contains("cut short")
        );
        assert!(
            unpack(b"\x7fELF", &dir.join("out3"))
                .unwrap_err()
                .to_string()
                .contains("pack header")
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_link_in_the_tree_is_refused_with_its_path() {
        let dir = scratch("link");
        write(&dir.join("real"), "x", false);
        std::os::unix::fs::symlink(dir.join("real"), dir.join("alias")).unwrap();
        let error = pack_dir(&dir).unwrap_err().to_string();
        assert!(error.contains("alias") && error.contains("no links"), "{error}");
        std::fs::remove_dir_all(dir).unwrap();
    }
}
