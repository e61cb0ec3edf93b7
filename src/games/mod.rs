//! The rules of each game, one module (file or folder) per game.

pub mod afrika;
pub mod anywoli;
pub mod fanorona;
pub mod kalah;
pub mod mancala;

/// A whole number in a position string: plain decimal digits only (no sign, no blanks), so
/// that every game judges `+4`, `-0` or ` 4` alike (see protocol.md, "Position strings").
/// `None` when the text is not such a number or does not fit `T`.
pub fn parse_digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::parse_digits;

    #[test]
    fn only_plain_digits_are_numbers() {
        assert_eq!(parse_digits::<u32>("0"), Some(0));
        assert_eq!(parse_digits::<u32>("0042"), Some(42));
        assert_eq!(parse_digits::<u32>("4294967295"), Some(u32::MAX));
        for bad in ["", "+4", "-0", " 4", "4 ", "4.0", "1e3", "4294967296", "٣"] {
            assert_eq!(parse_digits::<u32>(bad), None, "{bad:?}");
        }
    }
}
