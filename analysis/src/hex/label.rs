//! Hex labels: column letters then row number (`C5`, `AB12`).

/// Column letters for a 0-based column: A..Z, AA, AB, ... (bijective base 26).
pub fn column_letters(col: u32) -> String {
    let mut b = Label::EMPTY;
    b.push_letters(col);
    b.as_str().to_owned()
}

/// The label for 0-based `col` and `row`, rows numbered from `first_row`.
pub fn format_label(col: u32, row: u32, first_row: u32) -> String {
    Label::new(col, row, first_row).as_str().to_owned()
}

/// A label in a few bytes of its own: what long lists of labels are written from
/// without a string allocated for each (a million-hex viewshed's JSON spent most of
/// its time on them).
#[derive(Clone, Copy)]
pub struct Label {
    bytes: [u8; 24],
    len: usize,
}

impl Label {
    const EMPTY: Label = Label {
        bytes: [0; 24],
        len: 0,
    };

    /// The label for 0-based `col` and `row`, rows numbered from `first_row`.
    pub fn new(col: u32, row: u32, first_row: u32) -> Label {
        let mut b = Label::EMPTY;
        b.push_letters(col);
        // At most seven letters and eleven digits.
        let mut n = u64::from(row) + u64::from(first_row);
        let mut digits = [0u8; 20];
        let mut k = digits.len();
        loop {
            k -= 1;
            digits[k] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        b.push(&digits[k..]);
        b
    }

    /// Appends the column letters of 0-based `col`.
    fn push_letters(&mut self, col: u32) {
        let mut n = u64::from(col) + 1;
        let mut letters = [0u8; 8];
        let mut k = letters.len();
        while n > 0 {
            k -= 1;
            letters[k] = b'A' + ((n - 1) % 26) as u8;
            n = (n - 1) / 26;
        }
        self.push(&letters[k..]);
    }

    fn push(&mut self, b: &[u8]) {
        self.bytes[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }

    /// The label.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).expect("ASCII letters and digits")
    }
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Label {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Parses a label into 0-based (`col`, `row`); letters are case-insensitive.
/// Returns `None` for anything that is not letters followed by digits, or a row
/// number below `first_row`.
pub fn parse_label(label: &str, first_row: u32) -> Option<(u32, u32)> {
    // Bytes, not chars: a map's million labels are read here on loading.
    let b = label.as_bytes();
    let split = b.iter().position(|c| !c.is_ascii_alphabetic())?;
    let (letters, digits) = b.split_at(split);
    if letters.is_empty()
        || letters.len() > 6
        || digits.is_empty()
        || !digits.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let mut col: u64 = 0;
    for b in letters {
        col = col * 26 + u64::from(b.to_ascii_uppercase() - b'A' + 1);
    }
    let row = digits.iter().try_fold(0u32, |n, d| {
        n.checked_mul(10)?.checked_add(u32::from(d - b'0'))
    })?;
    let row = row.checked_sub(first_row)?;
    Some((u32::try_from(col - 1).ok()?, row))
}

/// Why `label` is not a label (for rows numbered from `first_row`), or `None` when
/// it parses: for messages beside "not a hex of this map".
pub fn problem(label: &str, first_row: u32) -> Option<String> {
    if parse_label(label, first_row).is_some() {
        return None;
    }
    let letters = label.bytes().take_while(u8::is_ascii_alphabetic).count();
    let digits = &label[letters..];
    Some(if label.is_empty() {
        "a hex label is column letters then a row number, like C5; this one is empty".into()
    } else if letters == 0 {
        "a hex label starts with column letters, like C5".into()
    } else if letters > 6 {
        format!("{letters} column letters; a label has at most 6")
    } else if digits.is_empty() {
        "a hex label needs a row number after the column letters, like C5".into()
    } else if !digits.bytes().all(|b| b.is_ascii_digit()) {
        "after the column letters a hex label has only digits, like C5".into()
    } else {
        format!("rows are numbered from {first_row}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_run_a_to_z_then_double_letters() {
        assert_eq!(column_letters(u32::MAX), "MWLQKWV");
        assert_eq!(format_label(u32::MAX, u32::MAX, 1), "MWLQKWV4294967296");
        for (col, row, first) in [(0, 0, 0), (27, 8, 1), (702, 99_999, 1), (18_277, 0, 1)] {
            let label = Label::new(col, row, first);
            assert_eq!(
                label.to_string(),
                format!("{}{}", column_letters(col), row + first)
            );
            assert_eq!(
                serde_json::to_string(&label).unwrap(),
                format!("\"{label}\"")
            );
        }
        assert_eq!(column_letters(0), "A");
        assert_eq!(column_letters(25), "Z");
        assert_eq!(column_letters(26), "AA");
        assert_eq!(column_letters(27), "AB");
        assert_eq!(column_letters(701), "ZZ");
        assert_eq!(column_letters(702), "AAA");
    }

    #[test]
    fn labels_round_trip_and_reject_garbage() {
        for col in 0..800 {
            for row in [0, 1, 9, 10, 99] {
                assert_eq!(parse_label(&format_label(col, row, 1), 1), Some((col, row)));
                assert_eq!(parse_label(&format_label(col, row, 0), 0), Some((col, row)));
            }
        }
        assert_eq!(parse_label("c5", 1), Some((2, 4)));
        for bad in ["", "5", "C", "C-1", "C5x", "5C", "C 5", "C0"] {
            assert_eq!(parse_label(bad, 1), None, "{bad}");
        }
        assert_eq!(parse_label("C0", 0), Some((2, 0)));
        assert_eq!(parse_label("ABCDEFGHIJKLMNOPQRST1", 1), None);
        assert_eq!(parse_label("A99999999999999999999", 1), None);
        assert!(problem("A0", 1).unwrap().contains("from 1"));
        assert!(problem("A-1", 1).unwrap().contains("only digits"));
        assert!(problem("", 1).unwrap().contains("empty"));
        assert!(
            problem("ABCDEFGHIJKLMNOPQRST1", 1)
                .unwrap()
                .contains("20 column")
        );
        assert_eq!(problem("C5", 1), None);
    }
}
