//! JSON answers written as they are serialized: a big map's millions of per-hex
//! entries never stand in memory as a tree of values (a 2000x2000 exposure's tree
//! took 3.4 GB beside its 236 MB of text).

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use std::io::Write;

/// A JSON object of `n` entries, `entry(i)` giving the `i`-th key and value when
/// it is written.
pub struct PerHex<F>(pub usize, pub F);

impl<F, K, V> Serialize for PerHex<F>
where
    F: Fn(usize) -> (K, V),
    K: Serialize,
    V: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0))?;
        for i in 0..self.0 {
            let (k, v) = (self.1)(i);
            m.serialize_entry(&k, &v)?;
        }
        m.end()
    }
}

/// Writes `value` as pretty JSON and a newline.
pub fn write_pretty(w: &mut dyn Write, value: &impl Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value)?;
    w.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The entries come out in order, as the same object built as a tree would.
    #[test]
    fn entries_written_one_by_one_read_as_the_tree() {
        let streamed = PerHex(3, |i| (format!("A{}", i + 1), json!({"n": i * i})));
        let mut text = Vec::new();
        write_pretty(&mut text, &streamed).unwrap();
        let tree = json!({"A1": {"n": 0}, "A2": {"n": 1}, "A3": {"n": 4}});
        let want = serde_json::to_string_pretty(&tree).unwrap() + "\n";
        assert_eq!(String::from_utf8(text).unwrap(), want);
    }
}
