//! Text from outside (a file's contents or name, a path, a line of input) made safe to
//! print inside one line of output: a network's id holding a newline must not become a
//! line of the protocol of its own.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with its control characters written out: `\n`, `\r` and `\t` as those two
/// characters, every other control character (and the Unicode line and paragraph
/// separators) as `\u{…}`, its code in hexadecimal. Text without any is returned as it is.
pub fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if escaped(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// What [`one_line`] writes out: control characters and the Unicode line and paragraph
/// separators.
fn escaped(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Text of several lines from outside (a report quoting its input), each line made safe as
/// by [`one_line`], the line ends kept.
pub fn lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && escaped(c)) {
        return Cow::Borrowed(text);
    }
    let parts: Vec<Cow<'_, str>> = text.split('\n').map(one_line).collect();
    Cow::Owned(parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_written_out_and_other_text_kept() {
        assert!(matches!(one_line("fanorona 9x5 ü"), Cow::Borrowed(_)));
        assert_eq!(one_line("a\nbestmove x"), "a\\nbestmove x");
        assert_eq!(
            one_line("\r\t\u{1b}[2J\u{0}\u{7f}\u{85}"),
            "\\r\\t\\u{1b}[2J\\u{0}\\u{7f}\\u{85}"
        );
        assert_eq!(one_line("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert!(!one_line("x\ny\rz\u{b}").contains(['\n', '\r', '\u{b}']));
        assert!(matches!(lines("a\nb\n"), Cow::Borrowed(_)));
        assert_eq!(lines("a\u{0}\nb\r\n"), "a\\u{0}\nb\\r\n");
    }
}
