//! hexsight-analysis: exact line of sight and visibility analysis on hex maps.
//!
//! Data flows one way: a ruleset's tables ([`ruleset::Ruleset`], data only) are
//! read below the map; a map file is loaded into a [`map::Map`] holding its ruleset,
//! and its units are checked by the family's code in [`rules`];
//! [`los::line_of_sight`] walks one sight line exactly ([`hex::HexLine`]) and asks
//! the ruleset's family for a verdict; the [`engine`] answers whole-map questions
//! built on that.
//!
//! # A tour
//!
//! Load a map ([`Map::load`] reads the file, its ruleset and checks its units; a
//! bundled map here):
//!
//! ```
//! use hexsight_analysis::{Map, Verdict};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../maps/hill-112.json");
//! let map = Map::load(std::path::Path::new(path))?;
//! assert_eq!((map.cols, map.rows), (20, 12));
//! assert_eq!(map.ruleset.name, "combat-commander");
//! # Ok::<(), hexsight_analysis::Error>(())
//! ```
//!
//! One sight line, explained: the verdict, what blocks it and the rule's reason.
//! From H7 on the hill, B9 lies directly behind the lower building in C9:
//!
//! ```
//! # use hexsight_analysis::{Map, Verdict};
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../maps/hill-112.json");
//! # let map = Map::load(std::path::Path::new(path))?;
//! let los = hexsight_analysis::line_of_sight_labels(&map, "H7", "B9")?;
//! assert_eq!(los.verdict, Verdict::Blocked);
//! let blocker = los.blocked_by.expect("a blocked line names its blocker");
//! assert_eq!(blocker.place.hexes(), [map.parse_hex("C9").unwrap()]);
//! assert!(los.reason.contains("blind hex"), "{}", los.reason);
//!
//! // Every hex sees its own hex.
//! let h7 = map.parse_hex("H7").unwrap();
//! assert!(hexsight_analysis::line_of_sight(&map, h7, h7).verdict.sees());
//! # Ok::<(), hexsight_analysis::Error>(())
//! ```
//!
//! Everything one hex sees, at once ([`engine::viewshed`]), agreeing with the
//! explained query hex by hex:
//!
//! ```
//! # use hexsight_analysis::{Map, Verdict};
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../maps/hill-112.json");
//! # let map = Map::load(std::path::Path::new(path))?;
//! use hexsight_analysis::engine::viewshed::viewshed;
//!
//! let h7 = map.parse_hex("H7").unwrap();
//! let view = viewshed(&map, h7);
//! assert_eq!(view.targets.len(), map.len());
//! let b9 = map.index(map.parse_hex("B9").unwrap()).unwrap();
//! assert_eq!(view.targets[b9].verdict, Verdict::Blocked);
//! assert!(view.blind().contains(&b9));
//! for (j, t) in view.targets.iter().enumerate() {
//!     let los = hexsight_analysis::line_of_sight(&map, h7, map.hex_of(j));
//!     assert_eq!(t.verdict, los.verdict, "{}", map.label(map.hex_of(j)));
//! }
//! # Ok::<(), hexsight_analysis::Error>(())
//! ```
//!
//! Every observer against every target ([`engine::matrix`]): one bit per ordered
//! pair, computed on an [`engine::fast::Engine`] prepared once for the map. Its rows
//! are the viewsheds:
//!
//! ```
//! # use hexsight_analysis::{Map, Verdict};
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../maps/hill-112.json");
//! # let map = Map::load(std::path::Path::new(path))?;
//! use hexsight_analysis::engine::fast::Engine;
//! use hexsight_analysis::engine::matrix::matrix;
//! use hexsight_analysis::engine::viewshed::viewshed;
//! use hexsight_analysis::engine::{Control, Selection};
//!
//! let engine = Engine::try_new(&map)?;
//! let m = matrix(&engine, &Selection::all(&map), &Control::default())?;
//! let h7 = map.index(map.parse_hex("H7").unwrap()).unwrap();
//! let b9 = map.index(map.parse_hex("B9").unwrap()).unwrap();
//! assert!(!m.bits.get(h7, b9));
//! assert!(m.bits.get(h7, h7));
//! let view = viewshed(&map, map.hex_of(h7));
//! assert_eq!(m.bits.count_row(h7), map.len() - view.count(Verdict::Blocked));
//! # Ok::<(), hexsight_analysis::Error>(())
//! ```
//!
//! Zones of hexes as users write them (`A1:F10,G3`, or the map's own zone names) are
//! read by [`map::zones`]; the unit questions (can see, can be targeted, can fire),
//! spotting, ranges and deployment are in [`query`]; files and pictures in [`export`].

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod atomic;
pub mod engine;
pub mod error;
pub mod export;
pub mod generate;
pub mod georef;
pub mod hex;
pub mod huge_pages;
pub mod import;
pub mod los;
pub mod map;
pub mod memory;
pub mod query;
pub mod rules;
pub mod ruleset;
pub(crate) mod text;

pub use error::{Error, ErrorKind, Result};
pub use los::{LosResult, line_of_sight, line_of_sight_labels};
pub use map::Map;
pub use rules::{Ruleset, Verdict};
