//! Lines of a text input (a records file, games for `sowfan analyse`, a person's moves in
//! `sowfan play`) read with a bound on their length, so that no input can make a reader
//! hold more than one bounded line: a longer line is read in chunks and dropped up to its
//! newline, and a line that is not UTF-8 is an error of that line alone, never the end of
//! the input.

use std::io::{self, BufRead};

use thiserror::Error;

use crate::cli::CancelToken;

/// The longest line read, in bytes: a `sowfan match --records` line of a 100 000-move game
/// takes about 4 MiB, so any real record fits with room to spare.
pub const MAX_LINE_BYTES: usize = 8 << 20;

/// Why a line could not be read as text. Each reader says what it does with the line
/// (`analyse` skips it, `match --resume` and `tune` stop there).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineError {
    #[error("the line is longer than {} MiB ({bytes} bytes)", MAX_LINE_BYTES >> 20)]
    TooLong { bytes: u64 },
    #[error("the line is not UTF-8 text (byte {at})")]
    NotUtf8 { at: usize },
}

/// One line: its number (from 1) and its text without the line ending (`\n` or `\r\n`).
pub type Line = (usize, Result<String, LineError>);

/// The lines of `reader`, each at most `limit` bytes long.
pub struct BoundedLines<R> {
    reader: R,
    limit: usize,
    number: usize,
    stop: Option<CancelToken>,
}

impl<R: BufRead> BoundedLines<R> {
    pub fn new(reader: R) -> BoundedLines<R> {
        BoundedLines::with_limit(reader, MAX_LINE_BYTES)
    }

    pub fn with_limit(reader: R, limit: usize) -> BoundedLines<R> {
        BoundedLines {
            reader,
            limit,
            number: 0,
            stop: None,
        }
    }

    /// End the lines (as at the end of the input) once `stop` is cancelled, looked at for
    /// every buffer read: a line that never ends (`/dev/zero`) does not hold up a Ctrl-C.
    pub fn until(mut self, stop: CancelToken) -> BoundedLines<R> {
        self.stop = Some(stop);
        self
    }

    /// The next line; `None` at the end of the input. An I/O error is the reader's (the
    /// input cannot be read further).
    pub fn next_line(&mut self) -> Option<io::Result<Line>> {
        let mut text = Vec::new();
        let mut bytes: u64 = 0;
        let mut too_long = false;
        let mut any = false;
        loop {
            if self.stop.as_ref().is_some_and(CancelToken::is_cancelled) {
                return None;
            }
            let available = match self.reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            };
            if available.is_empty() {
                if !any {
                    return None;
                }
                break;
            }
            any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(available.len());
            bytes += take as u64;
            if !too_long {
                if text.len() + take > self.limit {
                    // Dropped as it comes: the rest of the line is only counted.
                    too_long = true;
                    text = Vec::new();
                } else {
                    text.extend_from_slice(&available[..take]);
                }
            }
            let used = take + usize::from(newline.is_some());
            self.reader.consume(used);
            if newline.is_some() {
                break;
            }
        }
        self.number += 1;
        if too_long {
            return Some(Ok((self.number, Err(LineError::TooLong { bytes }))));
        }
        if text.last() == Some(&b'\r') {
            text.pop();
        }
        let line = String::from_utf8(text).map_err(|e| LineError::NotUtf8 {
            at: e.utf8_error().valid_up_to() + 1,
        });
        Some(Ok((self.number, line)))
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_line()
    }
}

/// Whether `file` is empty or ends in a newline: a file written a line at a time whose last
/// line has none was cut off as it was written. The file is read from anywhere.
pub fn ends_in_newline(file: &mut std::fs::File) -> io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let length = file.metadata()?.len();
    if length == 0 {
        return Ok(true);
    }
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(length - 1))?;
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(input: &[u8], limit: usize) -> Vec<Line> {
        // A small buffer, so that lines span several reads.
        let reader = io::BufReader::with_capacity(4, input);
        BoundedLines::with_limit(reader, limit)
            .map(|line| line.unwrap())
            .collect()
    }

    #[test]
    fn lines_endings_and_the_last_line_without_one() {
        let lines = read(b"ab\r\n\ncdef\nlast", 10);
        let texts: Vec<(usize, String)> = lines.into_iter().map(|(n, t)| (n, t.unwrap())).collect();
        assert_eq!(
            texts,
            vec![
                (1, "ab".to_string()),
                (2, String::new()),
                (3, "cdef".to_string()),
                (4, "last".to_string())
            ]
        );
        assert!(read(b"", 10).is_empty());
        assert_eq!(read(b"\n", 10), vec![(1, Ok(String::new()))]);
    }

    #[test]
    fn a_long_line_is_dropped_and_the_next_read() {
        let mut input = vec![b'x'; 25];
        input.extend_from_slice(b"\nok\n");
        input.extend(vec![b'y'; 11]);
        let lines = read(&input, 10);
        assert_eq!(
            lines,
            vec![
                (1, Err(LineError::TooLong { bytes: 25 })),
                (2, Ok("ok".to_string())),
                (3, Err(LineError::TooLong { bytes: 11 })),
            ]
        );
        // Exactly the limit is fine.
        assert_eq!(read(&[b'z'; 10], 10), vec![(1, Ok("z".repeat(10)))]);
    }

    #[test]
    fn a_line_that_is_not_utf8_is_an_error_of_that_line_only() {
        let lines = read(b"good\nab\xffc\n\xc3\nend\n", 100);
        assert_eq!(
            lines,
            vec![
                (1, Ok("good".to_string())),
                (2, Err(LineError::NotUtf8 { at: 3 })),
                (3, Err(LineError::NotUtf8 { at: 1 })),
                (4, Ok("end".to_string())),
            ]
        );
    }
}
