//! A map file's `hexes` object read straight from the text, in parallel, where
//! its entries are plain: a label, then an object of `terrain` (a string without
//! escapes), `level` (an integer) and `slope` (`true` or `false`), each at most
//! once. A million such entries took serde about 130 ms, most of a 45 MB map's
//! load; anything else (another key, an escape, a number with a fraction, a
//! syntax error) makes [`read`] decline, and the file is read by serde as before,
//! with its errors and their lines.
//!
//! The object is cut into runs at a guess: the first `}`, `,`, `"` after each
//! even share of the text. A run is read from where it starts until it stands at
//! the next run's start; a guess is right when the run before it ends exactly
//! there, after a whole entry, and the first run starts at the object's opening
//! brace, so every run is read as one reading from the start would read it.

use super::entries::{Entries, Entry};
use rayon::prelude::*;
use serde::de::DeserializeOwned;

/// Text per run below which the object is read in one run.
const RUN_BYTES: usize = 1 << 20;

/// The file parsed as `T` with an empty `hexes` object, and the object's entries
/// read apart; `None` where the object is missing or not plain, or the rest of the
/// file does not parse (serde then reads the whole file and names the error).
///
/// The entries are not checked for a label given twice: the map's build finds two
/// entries for one hex.
pub(crate) fn read<T: DeserializeOwned>(text: &str) -> Option<(T, Entries)> {
    read_in(text, (RUN_BYTES, rayon::current_num_threads()))
}

/// [`read`], in runs of at least `runs.0` bytes of text, at most `runs.1` of them.
fn read_in<T: DeserializeOwned>(text: &str, runs: (usize, usize)) -> Option<(T, Entries)> {
    let (start, end, entries) = find_and_read(text, runs)?;
    let mut rest = String::with_capacity(text.len() - (end - start) + 2);
    rest.push_str(&text[..start]);
    rest.push_str("{}");
    rest.push_str(&text[end..]);
    let file = serde_json::from_str(&rest).ok()?;
    Some((file, entries))
}

/// The byte range of the top-level `hexes` object and its entries.
fn find_and_read(text: &str, runs: (usize, usize)) -> Option<(usize, usize, Entries)> {
    let b = text.as_bytes();
    let mut i = ws(b, 0);
    (b.get(i) == Some(&b'{')).then_some(())?;
    i = ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return None;
    }
    loop {
        let key;
        (key, i) = key_of(text, i)?;
        if key == "hexes" {
            let (entries, end) = object(text, i, runs)?;
            return Some((i, end, entries));
        }
        i = ws(b, skip_value(b, i)?);
        match b.get(i)? {
            b',' => i = ws(b, i + 1),
            _ => return None,
        }
    }
}

/// The entries of the object starting at `open` (its `{`) and the byte after its
/// `}`, read in runs side by side.
fn object(text: &str, open: usize, (run_bytes, most): (usize, usize)) -> Option<(Entries, usize)> {
    let b = text.as_bytes();
    (b.get(open) == Some(&b'{')).then_some(())?;
    let first = ws(b, open + 1);
    if b.get(first) == Some(&b'}') {
        return Some((Entries::default(), first + 1));
    }
    let runs = ((b.len() - first) / run_bytes).clamp(1, most.max(1));
    let mut starts = vec![first];
    for k in 1..runs {
        let Some(guess) = guess_entry_start(b, first + k * (b.len() - first) / runs) else {
            break;
        };
        if guess > *starts.last().expect("one start") {
            starts.push(guess);
        }
    }
    let read: Vec<Option<Run>> = (0..starts.len())
        .into_par_iter()
        .map(|k| run(text, starts[k], starts.get(k + 1).copied()))
        .collect();
    let mut all = Entries::default();
    for r in read {
        let r = r?;
        all.append(r.entries);
        if let Some(end) = r.closed {
            return Some((all, end));
        }
    }
    None
}

/// What one run read.
struct Run {
    entries: Entries,
    /// The byte after the object's `}`, where the run read to the object's end
    /// (a guess may fall after it, in a long value that follows).
    closed: Option<usize>,
}

/// The first place after `from` that looks like an entry's label: a `"` after a
/// `}` and a `,`.
fn guess_entry_start(b: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        i += b.get(i..)?.iter().position(|&c| c == b'}')?;
        let j = ws(b, i + 1);
        if b.get(j) == Some(&b',') {
            let k = ws(b, j + 1);
            if b.get(k) == Some(&b'"') {
                return Some(k);
            }
        }
        i += 1;
    }
}

/// Reads entries from `i` (at a label) until the reading stands exactly at
/// `until` (the next run's start, after a `,`) or the object's `}`. `None` where
/// the text is not plain or the reading passes `until` elsewhere than at an
/// entry's start.
fn run(text: &str, mut i: usize, until: Option<usize>) -> Option<Run> {
    let b = text.as_bytes();
    let mut entries = Entries::default();
    loop {
        let (label, at) = key_of(text, i)?;
        let (entry, after) = entry(text, at)?;
        entries.push(label, entry, None);
        i = ws(b, after);
        match b.get(i)? {
            b',' => i = ws(b, i + 1),
            b'}' => {
                return Some(Run {
                    entries,
                    closed: Some(i + 1),
                });
            }
            _ => return None,
        }
        match until {
            Some(u) if i == u => {
                return Some(Run {
                    entries,
                    closed: None,
                });
            }
            Some(u) if i > u => return None,
            _ => {}
        }
    }
}

/// One entry's object from `i` (its `{`), and the byte after its `}`.
fn entry(text: &str, mut i: usize) -> Option<(Entry<'_>, usize)> {
    let b = text.as_bytes();
    (b.get(i) == Some(&b'{')).then_some(())?;
    let mut e = Entry::default();
    i = ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some((e, i + 1));
    }
    loop {
        let key;
        (key, i) = key_of(text, i)?;
        i = match key {
            "terrain" if e.terrain.is_none() => {
                let (t, after) = string(text, i)?;
                e.terrain = Some(t);
                after
            }
            "level" if e.level.is_none() => {
                let (n, after) = integer(b, i)?;
                e.level = Some(n);
                after
            }
            "slope" if e.slope.is_none() => {
                let slope = if b[i..].starts_with(b"true") {
                    true
                } else if b[i..].starts_with(b"false") {
                    false
                } else {
                    return None;
                };
                e.slope = Some(slope);
                i + if slope { 4 } else { 5 }
            }
            _ => return None,
        };
        i = ws(b, i);
        match b.get(i)? {
            b',' => i = ws(b, i + 1),
            b'}' => return Some((e, i + 1)),
            _ => return None,
        }
    }
}

/// A JSON integer within `i32` from `i` (no fraction or exponent: those are
/// serde's to read), and the byte after it.
fn integer(b: &[u8], i: usize) -> Option<(i32, usize)> {
    let negative = b.get(i) == Some(&b'-');
    let digits = i + usize::from(negative);
    let len = b
        .get(digits..)?
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let end = digits + len;
    if len == 0 || len > 10 || (len > 1 && b[digits] == b'0') {
        return None;
    }
    if matches!(b.get(end), Some(b'.' | b'e' | b'E')) {
        return None;
    }
    let n = b[digits..end]
        .iter()
        .fold(0i64, |n, c| n * 10 + i64::from(c - b'0'));
    let n = if negative { -n } else { n };
    Some((i32::try_from(n).ok()?, end))
}

/// An object's key at `i` (its `"`), and where its value starts after the `:`.
fn key_of(text: &str, i: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    let (key, after) = string(text, i)?;
    let colon = ws(b, after);
    (b.get(colon) == Some(&b':')).then(|| (key, ws(b, colon + 1)))
}

/// The string at `i` (its `"`), without escapes or control characters, and the
/// byte after its closing `"`.
fn string(text: &str, i: usize) -> Option<(&str, usize)> {
    let b = text.as_bytes();
    (b.get(i) == Some(&b'"')).then_some(())?;
    let mut end = i + 1;
    loop {
        match *b.get(end)? {
            b'"' => break,
            b'\\' | 0..0x20 => return None,
            _ => end += 1,
        }
    }
    Some((&text[i + 1..end], end + 1))
}

/// The byte after the JSON value at `i`, found by its brackets and strings only
/// (serde reads it afterwards).
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *b.get(i)? {
            b'"' => {
                i += 1;
                loop {
                    match *b.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.checked_sub(1)?,
            _ => {}
        }
        i += 1;
        if depth == 0 && matches!(b.get(i), Some(b',' | b'}' | b' ' | b'\t' | b'\n' | b'\r')) {
            return Some(i);
        }
    }
}

/// The first byte at or after `i` that is not JSON whitespace.
fn ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::testmaps::{FAMILIES, random_map};
    use crate::generate::Rng;
    use crate::map::Map;
    use serde_json::Value;
    use std::path::Path;

    /// An entry as read: label, terrain, level, slope, other keys.
    type Owned = (
        String,
        Option<String>,
        Option<i32>,
        Option<bool>,
        Option<String>,
    );

    fn owned(e: &Entries) -> Vec<Owned> {
        e.iter()
            .map(|(label, e, extra)| {
                let extra = extra.map(|x| serde_json::to_string(x).expect("json"));
                let terrain = e.terrain.map(str::to_string);
                (label.to_string(), terrain, e.level, e.slope, extra)
            })
            .collect()
    }

    /// The entries as serde reads them, or `None` where it refuses the file.
    fn by_serde(text: &str) -> Option<Vec<Owned>> {
        #[derive(serde::Deserialize)]
        struct File {
            #[serde(default)]
            hexes: Entries,
        }
        let file: File = super::super::entries::from_json(text).ok()?;
        Some(owned(&file.hexes))
    }

    /// The text in many runs (of 64 bytes or more, up to 8), as [`read`] reads it.
    fn plain(text: &str) -> Option<Vec<Owned>> {
        read_in::<Value>(text, (64, 8)).map(|(_, e)| owned(&e))
    }

    /// How [`spelled`] orders the entries.
    #[derive(Clone, Copy)]
    enum Order {
        Map,
        Shuffled,
        FirstHalf,
    }

    /// A map's file with its entries in `order`, each entry's keys in a random
    /// order, and random JSON whitespace between tokens.
    fn spelled(map: &Map, order_kind: Order, rng: &mut Rng) -> String {
        let file: Value = serde_json::from_str(&map.to_json()).expect("json");
        let hexes: Vec<(String, Value)> = file["hexes"]
            .as_object()
            .map(|h| h.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let n = hexes.len();
        let mut order: Vec<usize> = (0..n).collect();
        match order_kind {
            Order::Map => {}
            Order::Shuffled => {
                for k in (1..n).rev() {
                    order.swap(k, (rng.next() % (k as u64 + 1)) as usize);
                }
            }
            Order::FirstHalf => order.truncate(n / 2),
        }
        let mut ws = || [" ", "", "\n", "\t", "\r\n  ", ""][(rng.next() % 6) as usize].to_string();
        let mut out = format!("{{{}", ws());
        for (key, value) in file.as_object().expect("an object") {
            out += &format!("\"{key}\"{}:{}", ws(), ws());
            if key == "hexes" {
                out += "{";
                for (n, &k) in order.iter().enumerate() {
                    let (label, entry) = &hexes[k];
                    out += &format!(
                        "{}{}\"{label}\"{}:{}{{",
                        if n > 0 { "," } else { "" },
                        ws(),
                        ws(),
                        ws()
                    );
                    let mut keys: Vec<_> = entry.as_object().expect("an entry").iter().collect();
                    if k % 3 == 0 {
                        keys.reverse();
                    }
                    for (m, (key, v)) in keys.into_iter().enumerate() {
                        out += &format!(
                            "{}{}\"{key}\"{}:{}{v}{}",
                            if m > 0 { "," } else { "" },
                            ws(),
                            ws(),
                            ws(),
                            ws()
                        );
                    }
                    out += &format!("}}{}", ws());
                }
                out += "}";
            } else {
                out += &serde_json::to_string(value).expect("json");
            }
            out += &format!("{},{}", ws(), ws());
        }
        out.truncate(out.trim_end().trim_end_matches(',').len());
        out + "}"
    }

    /// The map as [`Map::parse`] reads the text equals the map as serde alone reads
    /// it, or both refuse it with the same message.
    fn same_map(text: &str, what: &str) {
        let origin = Path::new("t.json");
        match (
            Map::parse(text, origin),
            super::super::file::parse_by_serde(text, origin),
        ) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.cells(), b.cells(), "{what}");
                assert_eq!(a.to_json(), b.to_json(), "{what}");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
            (a, b) => panic!("{what}: {:?} against serde's {:?}", a.err(), b.err()),
        }
    }

    #[test]
    fn plain_entries_read_as_serde_reads_them() {
        let mut rng = Rng(7);
        for (f, rs) in FAMILIES.into_iter().enumerate() {
            for seed in 0..2u64 {
                let map = random_map(rs, seed + 2 * f as u64, 13, 9);
                let texts = [
                    map.to_json(),
                    spelled(&map, Order::Map, &mut rng),
                    spelled(&map, Order::Shuffled, &mut rng),
                    spelled(&map, Order::FirstHalf, &mut rng),
                ];
                for (t, text) in texts.iter().enumerate() {
                    let what = format!("{rs} seed {seed} text {t}");
                    let read = plain(text);
                    assert!(read.is_some(), "{what}: plain entries declined");
                    assert_eq!(read, by_serde(text), "{what}");
                    same_map(text, &what);
                }
            }
        }
    }

    #[test]
    fn a_label_places_its_hex_as_the_axial_hex_does() {
        for seed in 0..4 {
            let map = random_map("geometric", seed, 7, 5);
            let off = "A0 H1 A6 G6 ZZ9 5 A4294967296"
                .split(' ')
                .chain(["", " c3", "c3 "]);
            let labels = (0..map.len()).map(|i| map.index_label(i).as_str().to_string());
            for label in labels.chain(off.map(str::to_string)) {
                for l in [label.clone(), label.to_lowercase()] {
                    let axial = map.parse_hex(&l).and_then(|h| map.index(h));
                    assert_eq!(map.label_index(&l), axial, "{l} (seed {seed})");
                }
            }
        }
    }

    #[test]
    fn a_large_map_reads_in_runs_as_serde_reads_it() {
        // More than a megabyte of entries (two runs of text) and more than 65,536
        // (two runs of cells), in the map's order, shuffled, and with a label
        // given twice far apart.
        let map = random_map(FAMILIES.into_iter().next().expect("a family"), 5, 300, 230);
        let mut rng = Rng(11);
        let text = spelled(&map, Order::Map, &mut rng);
        assert!(text.len() > 2 * RUN_BYTES && map.len() > 65_536);
        let last = text.rfind("\"A").expect("an entry");
        let twice = format!("{}\"A1\": {{}}, {}", &text[..last], &text[last..]);
        let middle = text[text.len() / 2..].find("\"").expect("an entry") + text.len() / 2;
        let label = &text[middle..middle + text[middle + 1..].find('"').expect("a label") + 2];
        let in_a_row = format!("{}{label}: {{}}, {}", &text[..middle], &text[middle..]);
        for (what, text) in [
            ("in order", &text),
            ("shuffled", &spelled(&map, Order::Shuffled, &mut rng)),
            ("a label given twice", &twice),
            ("a label given twice in a row", &in_a_row),
        ] {
            same_map(text, what);
        }
        assert_eq!(
            Map::parse(&text, Path::new("t.json"))
                .expect("a map")
                .to_json(),
            map.to_json()
        );
    }

    #[test]
    fn entries_that_are_not_plain_are_left_to_serde() {
        let map = random_map("asl", 3, 8, 6);
        let text = map.to_json();
        let first = text.find("\"hexes\"").expect("hexes");
        let entry =
            |label: &str| text[first..].find(&format!("\"{label}\"")).expect("entry") + first;
        let at = entry("C3");
        let replaced = [
            (
                "another key",
                "\"C3\": {",
                "\"C3\": {\"note\": {\"a\": [1, \"}, \\\"\"]},",
            ),
            ("an escape in a label", "\"C3\"", "\"C\\u0033\""),
            (
                "an escape in a terrain",
                "\"terrain\": \"",
                "\"terrain\": \"\\u0062",
            ),
            ("a level with a fraction", "\"level\": 1", "\"level\": 1.0"),
            ("a level as text", "\"level\": 1", "\"level\": \"1\""),
            ("a level past i32", "\"level\": 1", "\"level\": 99999999999"),
            (
                "a level with a leading zero",
                "\"level\": 1",
                "\"level\": 01",
            ),
            (
                "a null terrain",
                "\"terrain\": \"",
                "\"terrain\": null, \"x\": \"",
            ),
            ("a key given twice", "\"C3\": {", "\"C3\": {\"level\": 2, "),
            (
                "a trailing comma",
                "\n  },\n  \"hexsides\"",
                ",\n  },\n  \"hexsides\"",
            ),
            (
                "hexes given twice",
                "\"hexsides\"",
                "\"hexes\": {}, \"hexsides\"",
            ),
            ("hexes not an object", "\"hexes\": {", "\"hexes\": [{"),
            (
                "an unknown terrain",
                "\"terrain\": \"",
                "\"terrain\": \"nowhere",
            ),
        ];
        let before_c3 = |entry: &str| format!("{}{entry}, {}", &text[..at], &text[at..]);
        let mut edits: Vec<(&str, String)> = replaced
            .iter()
            .map(|&(what, from, to)| (what, text.replacen(from, to, 1)))
            .collect();
        edits.extend([
            ("a label given twice", before_c3("\"C3\": {}")),
            (
                "a label given twice in another case",
                before_c3("\"c3\": {}"),
            ),
            ("a label off the map", before_c3("\"Z99\": {}")),
            ("a byte-order mark", format!("\u{feff}{text}")),
            ("truncated", text[..text.len() / 2].to_string()),
        ]);
        for (what, edited) in &edits {
            assert_ne!(edited, &text, "{what}: the edit applies");
            // Where serde reads the entries, a plain reading gives the same; where
            // it refuses them (a label given twice), the map's build does.
            let (read, serde) = (plain(edited), by_serde(edited));
            assert!(read.is_none() || serde.is_none() || read == serde, "{what}");
            same_map(edited, what);
        }
    }

    #[test]
    fn mutated_files_read_as_serde_reads_them() {
        // Bytes changed to JSON's own, deleted or doubled, anywhere in the file: the
        // same map or the same error both ways, in one run of text and in many.
        let map = random_map("geometric", 6, 9, 7);
        let text = map.to_json();
        let mut rng = Rng(23);
        for case in 0..600 {
            let mut bytes = text.clone().into_bytes();
            for _ in 0..1 + rng.next() % 3 {
                let at = (rng.next() % bytes.len() as u64) as usize;
                match rng.next() % 3 {
                    0 => bytes[at] = b"{}[]:,\"\\ 019-.eEtrufalsn"[(rng.next() % 22) as usize],
                    1 => drop(bytes.remove(at)),
                    _ => {
                        let end = (at + 1 + (rng.next() % 40) as usize).min(bytes.len());
                        let span = bytes[at..end].to_vec();
                        bytes.splice(at..at, span);
                    }
                }
            }
            let Ok(mutated) = String::from_utf8(bytes) else {
                continue;
            };
            same_map(&mutated, &format!("case {case}"));
            let (read, serde) = (plain(&mutated), by_serde(&mutated));
            assert!(
                read.is_none() || serde.is_none() || read == serde,
                "case {case}"
            );
        }
    }

    #[test]
    fn a_guess_inside_a_string_is_refused() {
        // Terrain names may hold `}, ` before their closing quote, where a run's
        // start is guessed: the run before passes that place inside a string.
        let mut text = String::from("{\"hexes\": {");
        for k in 1..200 {
            text += &format!("\"A{k}\": {{\"terrain\": \"x}}, \", \"level\": {k}}}, ");
        }
        text += "\"B1\": {}}}";
        let serde = by_serde(&text);
        assert!(serde.is_some());
        let inside = text.find("x}, \"").expect("a trap") + 1;
        assert_eq!(guess_entry_start(text.as_bytes(), inside), Some(inside + 3));
        let first = text.find("\"A1\"").expect("first");
        assert!(run(&text, first, Some(inside + 3)).is_none());
        for runs in 1..9 {
            let read = read_in::<Value>(&text, (16, runs)).map(|(_, e)| owned(&e));
            assert!(read.is_none() || read == serde, "{runs} runs");
        }
    }
}
