//! Parse errors with 1-based line and column.

/// An error in the assembly text: where it is and what was expected there.
#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// Byte offset of the position in the text.
    pub offset: u32,
    pub message: String,
}

impl ParseError {
    /// An error at byte `offset` of `src`; the line and column are counted here, on the error
    /// path only, so that the lexer need not track them.
    #[cold]
    pub(crate) fn at(src: &[u8], offset: u32, message: impl Into<String>) -> ParseError {
        let off = (offset as usize).min(src.len());
        let before = &src[..off];
        let line_start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
        // Characters, not bytes: continuation bytes of UTF-8 sequences do not count.
        let column = before[line_start..]
            .iter()
            .filter(|&&c| c & 0xC0 != 0x80)
            .count()
            + 1;
        ParseError {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
            offset,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let src = "ab\ncé x\n";
        let e = ParseError::at(src.as_bytes(), 0, "m");
        assert_eq!((e.line, e.column), (1, 1));
        let x = src.find('x').unwrap() as u32;
        let e = ParseError::at(src.as_bytes(), x, "m");
        assert_eq!((e.line, e.column), (2, 4));
        let e = ParseError::at(src.as_bytes(), 1000, "m");
        assert_eq!(e.line, 3);
        assert_eq!(e.to_string(), "line 3, column 1: m");
    }
}
