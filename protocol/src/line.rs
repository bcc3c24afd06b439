//! Reading lines of arbitrary bytes with a bound on their length. Both ends
//! of a pipe need it: the engine reads whatever a GUI or a fuzzer sends,
//! the arena whatever a broken engine prints. `BufRead::read_line` would
//! buffer a line without end and fail on invalid UTF-8; this reader keeps
//! at most `max_len` bytes, reports longer lines by their length only, and
//! decodes with `from_utf8_lossy`.

use std::io::{self, BufRead};

/// The default longest line kept: 1 MiB.
pub const DEFAULT_MAX_LINE_LEN: usize = 1 << 20;

/// One line read by a [`LineReader`], its terminator (`\n` or `\r\n`)
/// removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// The line, invalid UTF-8 replaced by U+FFFD.
    Text(String),
    /// A line longer than the reader's limit, read and dropped.
    TooLong {
        /// Its length in bytes.
        len: u64,
    },
}

/// Reads `\n`-terminated lines of arbitrary bytes, keeping at most
/// `max_len` bytes of any line in memory.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    max_len: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader with the default limit, [`DEFAULT_MAX_LINE_LEN`].
    pub fn new(inner: R) -> Self {
        Self::with_max_len(inner, DEFAULT_MAX_LINE_LEN)
    }

    /// A reader dropping lines longer than `max_len` bytes (terminator not
    /// counted).
    pub fn with_max_len(inner: R, max_len: usize) -> Self {
        LineReader { inner, max_len }
    }

    /// The next line, or `None` at end of input. A last line without a
    /// terminator is still returned.
    ///
    /// # Errors
    /// Any I/O error of the underlying reader other than `Interrupted`
    /// (which is retried). A line cut by an error is lost.
    pub fn read_line(&mut self) -> io::Result<Option<Line>> {
        let mut kept = Vec::new();
        let mut len: u64 = 0;
        let mut last = None;
        let mut read_any = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                if !read_any {
                    return Ok(None);
                }
                break;
            }
            read_any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            // Keep one byte past the limit so that a `\r` before the `\n`
            // does not make a line of exactly `max_len` bytes too long.
            let room = (self.max_len + 1).saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            len += chunk.len() as u64;
            if let Some(&b) = chunk.last() {
                last = Some(b);
            }
            let consumed = chunk.len() + usize::from(newline.is_some());
            self.inner.consume(consumed);
            if newline.is_some() {
                break;
            }
        }
        if last == Some(b'\r') {
            len -= 1;
        }
        if len > self.max_len as u64 {
            return Ok(Some(Line::TooLong { len }));
        }
        kept.truncate(len as usize);
        Ok(Some(Line::Text(String::from_utf8_lossy(&kept).into_owned())))
    }

    /// The underlying reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: BufRead> Iterator for LineReader<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_line().transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max_len: usize) -> Vec<Line> {
        // A tiny buffer makes lines span many `fill_buf` calls.
        let reader = io::BufReader::with_capacity(3, input);
        LineReader::with_max_len(reader, max_len).map(Result::unwrap).collect()
    }

    fn text(s: &str) -> Line {
        Line::Text(s.to_owned())
    }

    #[test]
    fn terminators_are_removed_and_the_last_line_kept() {
        assert_eq!(
            lines(b"uci\r\nisready\n\nquit", 100),
            [text("uci"), text("isready"), text(""), text("quit")]
        );
        assert_eq!(lines(b"", 100), []);
        assert_eq!(lines(b"\n", 100), [text("")]);
        assert_eq!(lines(b"a\rb\n", 100), [text("a\rb")]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(lines(b"go \xff\xfe depth\n", 100), [text("go \u{fffd}\u{fffd} depth")]);
    }

    #[test]
    fn long_lines_are_dropped_not_buffered() {
        assert_eq!(
            lines(b"12345\n123456\r\n1234567\nok", 6),
            [text("12345"), text("123456"), Line::TooLong { len: 7 }, text("ok")]
        );
        let huge = vec![b'x'; 10 << 20];
        let mut reader = LineReader::new(io::BufReader::new(&huge[..]));
        assert_eq!(reader.read_line().unwrap(), Some(Line::TooLong { len: 10 << 20 }));
        assert_eq!(reader.read_line().unwrap(), None);
    }
}
