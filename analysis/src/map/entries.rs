//! The `hexes` object of a map or layer file, in file order, each entry packed in
//! 20 bytes: a million-hex map's entries took 72 bytes each as labels and entries
//! side by side, and the fresh pages they filled were a third of reading the map.

use super::model::Extra;
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

/// One entry's terrain, level and slope, as given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry<'a> {
    pub(crate) terrain: Option<&'a str>,
    pub(crate) level: Option<i32>,
    pub(crate) slope: Option<bool>,
}

/// The entries of a `hexes` object; a key given twice is a syntax error with its
/// position.
#[derive(Clone, Default)]
pub(crate) struct Entries {
    packed: Vec<Packed>,
    /// Labels longer than eight bytes (none in a map within the format's limits).
    long: Vec<String>,
    /// The terrain names given, each once: an entry's `terrain` is one more than
    /// its place here, 0 for none.
    terrains: Vec<String>,
    terrain_ids: rustc_hash::FxHashMap<String, u32>,
    /// The other keys of the entries that have them, by entry, in order.
    extras: Vec<(usize, Extra)>,
}

/// One entry: its label inline (up to eight bytes; else its place in `long`), its
/// terrain's number, its level and which of level and slope it gives.
#[derive(Clone, Copy)]
struct Packed {
    label: [u8; 8],
    level: i32,
    terrain: u32,
    len: u8,
    flags: u8,
}

/// [`Packed::len`] of a label kept in [`Entries::long`].
const LONG: u8 = u8::MAX;
/// [`Packed::flags`]: a level given, a slope given, and the slope.
const LEVEL: u8 = 1;
const SLOPE: u8 = 2;
const SLOPE_TRUE: u8 = 4;

impl Entries {
    pub(crate) fn len(&self) -> usize {
        self.packed.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// Adds an entry after the others.
    pub(crate) fn push(&mut self, label: &str, e: Entry<'_>, extra: Option<Extra>) {
        let (mut bytes, len) = ([0; 8], label.len());
        let len = if len <= 8 {
            bytes[..len].copy_from_slice(label.as_bytes());
            len as u8
        } else {
            bytes = (self.long.len() as u64).to_le_bytes();
            self.long.push(label.to_string());
            LONG
        };
        let terrain = e.terrain.map_or(0, |t| self.terrain_number(t));
        let flags = if e.level.is_some() { LEVEL } else { 0 }
            | match e.slope {
                Some(true) => SLOPE | SLOPE_TRUE,
                Some(false) => SLOPE,
                None => 0,
            };
        if let Some(extra) = extra.filter(|x| !x.is_empty()) {
            self.extras.push((self.packed.len(), extra));
        }
        self.packed.push(Packed {
            label: bytes,
            level: e.level.unwrap_or(0),
            terrain,
            len,
            flags,
        });
    }

    /// A terrain name's number in [`Entries::terrains`] (one more than its place),
    /// added where it is new.
    fn terrain_number(&mut self, t: &str) -> u32 {
        if let Some(&k) = self.terrain_ids.get(t) {
            return k;
        }
        self.terrains.push(t.to_string());
        let k = self.terrains.len() as u32;
        self.terrain_ids.insert(t.to_string(), k);
        k
    }

    /// Adds `other`'s entries after these, in their order.
    pub(crate) fn append(&mut self, other: Entries) {
        if self.is_empty() && self.long.is_empty() && self.terrains.is_empty() {
            *self = other;
            return;
        }
        let terrains: Vec<u32> = other
            .terrains
            .iter()
            .map(|t| self.terrain_number(t))
            .collect();
        let (first, long) = (self.packed.len(), self.long.len() as u64);
        self.packed.extend(other.packed.iter().map(|p| {
            let mut p = *p;
            if let Some(t) = p.terrain.checked_sub(1) {
                p.terrain = terrains[t as usize];
            }
            if p.len == LONG {
                p.label = (u64::from_le_bytes(p.label) + long).to_le_bytes();
            }
            p
        }));
        self.long.extend(other.long);
        self.extras
            .extend(other.extras.into_iter().map(|(k, x)| (k + first, x)));
    }

    /// The label and entry of the `k`th entry.
    pub(crate) fn get(&self, k: usize) -> (&str, Entry<'_>) {
        self.unpack(&self.packed[k])
    }

    /// The other keys of the entries that have them, by entry number, in order.
    pub(crate) fn extras(&self) -> &[(usize, Extra)] {
        &self.extras
    }

    fn unpack<'a>(&'a self, p: &'a Packed) -> (&'a str, Entry<'a>) {
        let label = match p.len {
            LONG => self.long[u64::from_le_bytes(p.label) as usize].as_str(),
            n => std::str::from_utf8(&p.label[..usize::from(n)]).expect("copied from a str"),
        };
        let entry = Entry {
            terrain: p
                .terrain
                .checked_sub(1)
                .map(|t| self.terrains[t as usize].as_str()),
            level: (p.flags & LEVEL != 0).then_some(p.level),
            slope: (p.flags & SLOPE != 0).then_some(p.flags & SLOPE_TRUE != 0),
        };
        (label, entry)
    }

    /// Each entry's label, terrain, level and slope, and other keys if any, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, Entry<'_>, Option<&Extra>)> {
        let mut extras = self.extras.iter().peekable();
        self.packed.iter().enumerate().map(move |(k, p)| {
            let (label, entry) = self.unpack(p);
            let extra = extras.next_if(|x| x.0 == k).map(|x| &x.1);
            (label, entry, extra)
        })
    }
}

/// A key or string value, borrowed from the text where it holds no escape (a
/// `Cow<str>` is always read as an owned copy).
struct Text<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A hex entry as read (`hexes.A1`, `default`): by hand, not with
/// `#[serde(flatten)]`, which buffers every entry of a million-hex map into a tree
/// before reading it.
pub(crate) struct RawEntry<'de> {
    pub(crate) terrain: Option<Cow<'de, str>>,
    pub(crate) level: Option<i32>,
    pub(crate) slope: Option<bool>,
    /// Other keys, kept for saving.
    pub(crate) extra: Option<Extra>,
}

impl RawEntry<'_> {
    pub(crate) fn entry(&self) -> Entry<'_> {
        Entry {
            terrain: self.terrain.as_deref(),
            level: self.level,
            slope: self.slope,
        }
    }
}

impl<'de> Deserialize<'de> for RawEntry<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        /// The `level` value, read as [`super::file::de_level`] reads it.
        struct Level;
        impl<'de> serde::de::DeserializeSeed<'de> for Level {
            type Value = Option<i32>;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<i32>, D::Error> {
                super::file::de_level(d)
            }
        }
        /// A `terrain` value: a string, or `null` for none.
        struct Terrain;
        impl<'de> serde::de::DeserializeSeed<'de> for Terrain {
            type Value = Option<Cow<'de, str>>;
            fn deserialize<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Option<Cow<'de, str>>, D::Error> {
                Ok(Option::<Text<'de>>::deserialize(d)?.map(|t| t.0))
            }
        }
        impl<'de> Visitor<'de> for V {
            type Value = RawEntry<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a hex entry (an object with terrain, level, slope)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<RawEntry<'de>, A::Error> {
                use serde::de::Error as _;
                let mut e = RawEntry {
                    terrain: None,
                    level: None,
                    slope: None,
                    extra: None,
                };
                let (mut terrain, mut level, mut slope) = (false, false, false);
                let once = |seen: &mut bool, key: &'static str| {
                    if std::mem::replace(seen, true) {
                        Err(A::Error::duplicate_field(key))
                    } else {
                        Ok(())
                    }
                };
                while let Some(Text(key)) = m.next_key::<Text<'de>>()? {
                    match key.as_ref() {
                        "terrain" => {
                            once(&mut terrain, "terrain")?;
                            e.terrain = m.next_value_seed(Terrain)?;
                        }
                        "level" => {
                            once(&mut level, "level")?;
                            e.level = m.next_value_seed(Level)?;
                        }
                        "slope" => {
                            once(&mut slope, "slope")?;
                            e.slope = m.next_value()?;
                        }
                        _ => {
                            let extra = e.extra.get_or_insert_with(Default::default);
                            extra.insert(key.into_owned(), m.next_value()?);
                        }
                    }
                }
                Ok(e)
            }
        }
        d.deserialize_map(V)
    }
}

/// An entry written back: terrain, level and slope where given, then its other keys.
struct EntryOut<'a>(Entry<'a>, Option<&'a Extra>);

impl Serialize for EntryOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let EntryOut(e, extra) = self;
        let mut m = s.serialize_map(None)?;
        if let Some(t) = e.terrain {
            m.serialize_entry("terrain", t)?;
        }
        if let Some(l) = e.level {
            m.serialize_entry("level", &l)?;
        }
        if let Some(s) = e.slope {
            m.serialize_entry("slope", &s)?;
        }
        for (k, v) in extra.iter().copied().flatten() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl Serialize for Entries {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.len()))?;
        for (label, e, extra) in self.iter() {
            m.serialize_entry(label, &EntryOut(e, extra))?;
        }
        m.end()
    }
}

thread_local! {
    /// Set while [`from_json`] reads a text again to say where a duplicate hex
    /// entry is.
    static LOCATE_DUPLICATES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The error [`Entries`] gives when it finds a duplicate label after reading them all.
const DUPLICATE_FOUND: &str = "a hex entry is given twice";

/// Reads a file holding [`Entries`] from JSON text: when they hold a duplicate
/// label, the text is read again checking each label as it comes, so that the error
/// names the duplicate and its line.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    match serde_json::from_str(text) {
        Err(e) if e.to_string().starts_with(DUPLICATE_FOUND) => {
            LOCATE_DUPLICATES.set(true);
            let again = serde_json::from_str(text);
            LOCATE_DUPLICATES.set(false);
            again
        }
        read => read,
    }
}

/// A label of up to eight bytes upper-cased and packed in a word, for finding
/// duplicates; `None` for a longer one.
fn word(label: &str) -> Option<u64> {
    let mut word = [0; 8];
    word.get_mut(..label.len())?
        .copy_from_slice(label.as_bytes());
    word.make_ascii_uppercase();
    Some(u64::from_le_bytes(word))
}

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object from hex labels to hex entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Entries, A::Error> {
                // Labels of up to eight bytes (every map within the format's limits
                // has them) are kept packed in a word and checked for duplicates
                // once, sorted (a million in 15 ms, where a hash set's scattered
                // probes took 100 ms); only when one is found is the text read
                // again, checking each key as it comes, for the error's line.
                let located = LOCATE_DUPLICATES.get();
                let (mut short, mut words) = (rustc_hash::FxHashSet::default(), Vec::new());
                let mut long = HashSet::new();
                let mut out = Entries::default();
                while let Some(Text(key)) = m.next_key::<Text<'de>>()? {
                    let fresh = match word(&key) {
                        Some(word) => {
                            words.push(word);
                            !located || short.insert(word)
                        }
                        None => long.insert(key.to_ascii_uppercase()),
                    };
                    if !fresh {
                        return Err(serde::de::Error::custom(format!(
                            "duplicate hex entry `{key}`"
                        )));
                    }
                    let mut e: RawEntry<'de> = m.next_value()?;
                    let extra = e.extra.take();
                    out.push(&key, e.entry(), extra);
                }
                words.sort_unstable();
                if words.windows(2).any(|w| w[0] == w[1]) {
                    return Err(serde::de::Error::custom(DUPLICATE_FOUND));
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_keep_what_each_gives_in_order() {
        let mut extra = Extra::new();
        extra.insert("note".into(), serde_json::json!("a ford"));
        let long = "A".repeat(12) + "1";
        let given = [
            ("A1", Entry::default(), None),
            (
                "B2",
                Entry {
                    terrain: Some("woods"),
                    level: Some(-3),
                    slope: Some(false),
                },
                Some(extra.clone()),
            ),
            (
                long.as_str(),
                Entry {
                    terrain: Some("woods"),
                    level: None,
                    slope: Some(true),
                },
                None,
            ),
            (
                "ZZ99",
                Entry {
                    terrain: Some("building"),
                    level: Some(0),
                    slope: None,
                },
                Some(Extra::new()),
            ),
        ];
        let mut entries = Entries::default();
        for (label, e, x) in &given {
            entries.push(label, *e, x.clone());
        }
        assert_eq!(entries.len(), 4);
        let got: Vec<_> = entries.iter().map(|(l, e, x)| (l, e, x.cloned())).collect();
        // An empty set of other keys is none.
        let want: Vec<_> = given
            .iter()
            .map(|(l, e, x)| (*l, *e, x.clone().filter(|x| !x.is_empty())))
            .collect();
        assert_eq!(got, want);
        // Written and read back, the same.
        let text = serde_json::to_string(&entries).unwrap();
        let again: Entries = from_json(&text).unwrap();
        let back: Vec<_> = again.iter().map(|(l, e, x)| (l, e, x.cloned())).collect();
        assert_eq!(back, want, "{text}");
    }

    #[test]
    fn a_label_given_twice_is_named_with_its_line() {
        let text = "{\n\"A1\": {},\n\"b2\": {},\n\"B2\": {\"level\": 1}\n}";
        let e = from_json::<Entries>(text).err().expect("a duplicate");
        assert!(e.to_string().contains("duplicate hex entry `B2`"), "{e}");
        assert_eq!(e.line(), 4, "{e}");
    }
}
