//! JSON answers written as they are serialized: a big map's millions of per-hex
//! entries never stand in memory as a tree of values (a 2000x2000 exposure's tree
//! took 3.4 GB beside its 236 MB of text).

use serde::Serialize;
use std::io::Write;

/// A JSON list of the items `f` gives, written as they are serialized.
pub struct Stream<F>(pub F);

impl<F, I, T> Serialize for Stream<F>
where
    F: Fn() -> I,
    I: Iterator<Item = T>,
    T: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

/// A JSON object of the entries `f` gives, written as they are serialized.
pub struct StreamMap<F>(pub F);

impl<F, I, K, V> Serialize for StreamMap<F>
where
    F: Fn() -> I,
    I: Iterator<Item = (K, V)>,
    K: Serialize,
    V: Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map((self.0)())
    }
}

/// A compact formatter that starts a new line for each entry of the collections down
/// to a depth (two: the top object's members and the entries of the collections in it;
/// one hex a line at most), and nothing deeper:
/// a 1000x1000 map's answer is a few bytes a hex, yet `grep` and `head` still work.
struct Lines {
    depth: usize,
    /// Collections up to this depth have their entries on lines of their own.
    lines: usize,
}

impl serde_json::ser::Formatter for Lines {
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        w.write_all(if self.depth < self.lines {
            b"\n}"
        } else {
            b"}"
        })
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        w.write_all(if self.depth < self.lines {
            b"\n]"
        } else {
            b"]"
        })
    }
    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.entry(w, first)
    }
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.entry(w, first)
    }
}

impl Lines {
    fn entry<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.depth <= self.lines {
            w.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Writes `value` as compact JSON, an entry a line (see [`Lines`]), and a newline.
pub fn write_lines(w: &mut dyn Write, value: &impl Serialize) -> std::io::Result<()> {
    write_lines_to(w, value, 2)
}

/// Writes `value` as compact JSON with the entries of collections down to `depth` (1:
/// the top object or list) on lines of their own, and a newline.
pub fn write_lines_to(
    w: &mut dyn Write,
    value: &impl Serialize,
    depth: usize,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(
        &mut *w,
        Lines {
            depth: 0,
            lines: depth,
        },
    );
    value.serialize(&mut ser).map_err(std::io::Error::other)?;
    w.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Lines hold the top members and the entries one level down; the text parses
    /// back to the value.
    #[test]
    fn lines_hold_one_entry_each_and_read_back() {
        let v = json!({"a": 1, "hexes": {"A1": {"n": [1, 2]}, "A2": {"n": []}}, "l": ["x", "y"], "e": {}});
        let mut text = Vec::new();
        write_lines(&mut text, &v).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert_eq!(
            text,
            "{\n\"a\":1,\n\"hexes\":{\n\"A1\":{\"n\":[1,2]},\n\"A2\":{\"n\":[]}\n},\n\"l\":[\n\"x\",\n\"y\"\n],\n\"e\":{\n}\n}\n"
        );
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
    }

    /// The entries come out in order, as the same object built as a tree would.
    #[test]
    fn entries_written_one_by_one_read_as_the_tree() {
        let streamed = StreamMap(|| (0..3).map(|i| (format!("A{}", i + 1), json!({"n": i * i}))));
        let mut text = Vec::new();
        write_lines(&mut text, &streamed).unwrap();
        let tree = json!({"A1": {"n": 0}, "A2": {"n": 1}, "A3": {"n": 4}});
        let mut want = Vec::new();
        write_lines(&mut want, &tree).unwrap();
        assert_eq!(
            String::from_utf8(text).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }
}
