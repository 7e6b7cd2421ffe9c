//! The `hexsight` Python package's native module (`hexsight._hexsight`): thin
//! wrappers over `hexsight-analysis`. Every engine run releases the GIL; counts and
//! bits are handed to numpy without a copy.

// No unsafe code of our own, and none can be added: PyO3 0.30's macros expand to safe
// code at the user's spans (their unsafe lives inside pyo3), so `forbid` builds.
#![forbid(unsafe_code)]

use hexsight_analysis::engine::diff::{check_memory as diff_memory, diff as diff_of};
use hexsight_analysis::engine::exposure::{Exposure, exposure, shard};
use hexsight_analysis::engine::fast::Engine;
use hexsight_analysis::engine::matrix::{Control, Selection, matrix as matrix_of};
use hexsight_analysis::engine::min_height::{MAX_UP_TO, Stand, min_heights, min_heights_as};
use hexsight_analysis::engine::shared::SharedEngine;
use hexsight_analysis::engine::viewshed::viewshed_of;
use hexsight_analysis::generate::{Generator, generate as generate_map};
use hexsight_analysis::hex::{Layout, Orientation, Stagger};
use hexsight_analysis::map::zones;
use hexsight_analysis::rules::Verdict;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

create_exception!(
    _hexsight,
    HexsightError,
    PyException,
    "A map, ruleset or query hexsight refuses; the message is the command line's one line."
);

create_exception!(
    _hexsight,
    TooLargeError,
    HexsightError,
    "The request needs more memory than there is; nothing was computed."
);

create_exception!(
    _hexsight,
    CancelledError,
    HexsightError,
    "The run was stopped by its cancel flag; nothing was written."
);

/// What becomes the package's exception: a library error (its class by kind) or a message.
trait Refusal {
    fn into_py_err(self) -> PyErr;
}

impl Refusal for hexsight_analysis::Error {
    fn into_py_err(self) -> PyErr {
        use hexsight_analysis::ErrorKind;
        let text = self.to_string();
        match self.kind {
            ErrorKind::TooLarge => TooLargeError::new_err(text),
            ErrorKind::Cancelled => CancelledError::new_err(text),
            _ => HexsightError::new_err(text),
        }
    }
}

impl Refusal for String {
    fn into_py_err(self) -> PyErr {
        HexsightError::new_err(self)
    }
}

/// The library's error as a Python exception with the same one-line message.
fn err(e: impl Refusal) -> PyErr {
    e.into_py_err()
}

/// What `Map.min_height` gives a hex seen at no height up to the limit.
const NOT_SEEN: i32 = -1;

/// `(sees, seen_by)` as numpy arrays.
type Counts<'py> = (Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<u32>>);

/// A loaded map (`hexsight.load`, `hexsight.generate`).
#[pyclass(frozen, module = "hexsight._hexsight")]
struct Map {
    map: Arc<hexsight_analysis::Map>,
    /// The engine of the map, laid out at the first viewshed (or `min_height`) and
    /// kept for the next: the map never changes (the class is frozen).
    engine: OnceLock<SharedEngine>,
}

impl Map {
    fn of(map: hexsight_analysis::Map) -> Map {
        Map {
            map: Arc::new(map),
            engine: OnceLock::new(),
        }
    }

    /// The map's engine, laid out on first use (without the GIL).
    fn engine(&self, py: Python<'_>) -> PyResult<&SharedEngine> {
        if let Some(e) = self.engine.get() {
            return Ok(e);
        }
        let e = py
            .detach(|| SharedEngine::try_new(self.map.clone()))
            .map_err(err)?;
        // Another thread may have laid one out meanwhile: either serves.
        let _ = self.engine.set(e);
        Ok(self.engine.get().expect("set just now"))
    }

    /// Map indices of a zone (`A1:F10,G3` or a zone the map names), the whole map for `None`.
    fn zone(&self, option: &str, text: Option<&str>) -> PyResult<Vec<usize>> {
        match text {
            Some(t) => zones::resolve(&self.map, t).map_err(|e| err(format!("{option}: {e}"))),
            None => Ok((0..self.map.len()).collect()),
        }
    }

    fn index(&self, label: &str) -> PyResult<usize> {
        self.map
            .parse_hex(label)
            .and_then(|h| self.map.index(h))
            .ok_or_else(|| {
                err(format!(
                    "`{}` is not a hex of this {}x{} map ({} to {})",
                    hexsight_analysis::error::clip(label, 30),
                    self.map.cols,
                    self.map.rows,
                    self.map.label(self.map.hex_of(0)),
                    self.map.label(self.map.hex_of(self.map.len() - 1))
                ))
            })
    }

    /// Observers and targets as `exposure` takes them: a zone given alone stands for both.
    fn exposure_selection(&self, from: Option<&str>, to: Option<&str>) -> PyResult<Selection> {
        let (from, to) = match (from, to) {
            (Some(f), None) => (Some(f), Some(f)),
            (None, Some(t)) => (Some(t), Some(t)),
            other => other,
        };
        Ok(Selection {
            from: self.zone("from_zone", from)?,
            to: self.zone("to_zone", to)?,
        })
    }
}

#[pymethods]
impl Map {
    /// The map's name.
    #[getter]
    fn name(&self) -> &str {
        &self.map.name
    }

    /// The ruleset's name (`combat-commander`, `geometric`, ...).
    #[getter]
    fn ruleset(&self) -> &str {
        &self.map.ruleset.name
    }

    /// `(cols, rows)`.
    #[getter]
    fn shape(&self) -> (u32, u32) {
        (self.map.cols, self.map.rows)
    }

    /// Every hex's label, in map index order (the order of every array here).
    #[getter]
    fn labels(&self) -> Vec<String> {
        (0..self.map.len())
            .map(|i| self.map.label(self.map.hex_of(i)))
            .collect()
    }

    fn __len__(&self) -> usize {
        self.map.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<hexsight.Map {:?} {}x{} {}>",
            self.map.name, self.map.cols, self.map.rows, self.map.ruleset.name
        )
    }

    /// Map indices of a zone: `A1:F10,G3`, or the name of a zone the map file names.
    #[pyo3(name = "zone")]
    fn zone_indices<'py>(
        &self,
        py: Python<'py>,
        zone: &str,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let z = self.zone("zone", Some(zone))?;
        Ok(PyArray1::from_vec(
            py,
            z.into_iter().map(|i| i as u64).collect(),
        ))
    }

    /// Line of sight from one hex to another: the object of `hexsight los --json`.
    #[pyo3(signature = (a, b, range=None))]
    fn los<'py>(
        &self,
        py: Python<'py>,
        a: &str,
        b: &str,
        range: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let map = &*self.map;
        self.index(a)?;
        self.index(b)?;
        let limit = range
            .map(|t| hexsight_analysis::query::range::Range::parse(map, t))
            .transpose()
            .map_err(|e| err(format!("range: {e}")))?;
        let text = py.detach(|| -> Result<String, String> {
            let mut r =
                hexsight_analysis::line_of_sight_labels(map, a, b).map_err(|e| e.to_string())?;
            if let Some(l) = &limit {
                r = l.los(map, r);
            }
            Ok(r.to_json(map).to_string())
        });
        let text = text.map_err(err)?;
        py.import("json")?.call_method1("loads", (text,))
    }

    /// What one hex sees: a dict of numpy arrays in map index order, `verdict`
    /// (uint8: 0 clear, 1 hindered, 2 blocked), `hindrance` (uint32, 0 when blocked)
    /// and `blind` (bool: blocked only by obstacles lower than the observer). The first
    /// call lays out the map's engine and keeps it for the next.
    fn viewshed<'py>(&self, py: Python<'py>, hex: &str) -> PyResult<Bound<'py, PyDict>> {
        let i = self.index(hex)?;
        let shared = self.engine(py)?;
        let v = py
            .detach(|| viewshed_of(shared.engine(), i, &Control::default()))
            .map_err(err)?;
        let code = |v: Verdict| match v {
            Verdict::Clear => 0u8,
            Verdict::Hindered => 1,
            Verdict::Blocked => 2,
        };
        let d = PyDict::new(py);
        d.set_item(
            "verdict",
            PyArray1::from_vec(py, v.targets.iter().map(|t| code(t.verdict)).collect()),
        )?;
        d.set_item(
            "hindrance",
            PyArray1::from_vec(py, v.targets.iter().map(|t| t.hindrance).collect()),
        )?;
        d.set_item(
            "blind",
            PyArray1::from_vec(py, v.targets.iter().map(|t| t.blind).collect()),
        )?;
        Ok(d)
    }

    /// For every hex, how many hexes of `to_zone` it sees and how many of `from_zone`
    /// see it: `(sees, seen_by)` as uint32 arrays. A zone given alone stands for both,
    /// as in `hexsight exposure`. `shard=(k, n)` gives only shard `k` of `n`'s partial
    /// counts (as `exposure --shard k/n`); the `n` shards sum to the whole.
    #[pyo3(signature = (from_zone=None, to_zone=None, shard=None))]
    fn exposure<'py>(
        &self,
        py: Python<'py>,
        from_zone: Option<&str>,
        to_zone: Option<&str>,
        shard: Option<(usize, usize)>,
    ) -> PyResult<Counts<'py>> {
        let sel = self.exposure_selection(from_zone, to_zone)?;
        if let Some((k, n)) = shard.filter(|&(k, n)| k >= n) {
            return Err(err(format!(
                "shard ({k}, {n}): give (k, n) with 0 <= k < n"
            )));
        }
        let map = &*self.map;
        let e: Exposure = py
            .detach(|| {
                let engine = Engine::try_new(map)?;
                match shard {
                    Some((k, n)) => self::shard(&engine, &sel, k, n, &Control::default()),
                    None => exposure(&engine, &sel, &Control::default()),
                }
            })
            .map_err(err)?;
        Ok((
            PyArray1::from_vec(py, e.sees),
            PyArray1::from_vec(py, e.seen_by),
        ))
    }

    /// The visibility matrix, bit-packed: a uint64 array of shape
    /// `(observers, ceil(targets / 64))`; bit `j % 64` of word `j // 64` of row `i`
    /// is set when observer `i` sees target `j`. `hexsight.unpack(bits, targets)`
    /// expands it to booleans.
    #[pyo3(signature = (from_zone=None, to_zone=None))]
    fn matrix<'py>(
        &self,
        py: Python<'py>,
        from_zone: Option<&str>,
        to_zone: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let sel = Selection {
            from: self.zone("from_zone", from_zone)?,
            to: self.zone("to_zone", to_zone)?,
        };
        let map = &*self.map;
        let (rows, words) = (sel.from.len(), sel.to.len().div_ceil(64));
        let m = py
            .detach(|| {
                hexsight_analysis::engine::matrix::check_memory(
                    map,
                    &sel,
                    hexsight_analysis::memory::budget().map_or(u64::MAX, |b| b.0),
                )?;
                let engine = Engine::try_new(map)?;
                matrix_of(&engine, &sel, &Control::default())
            })
            .map_err(err)?;
        PyArray1::from_vec(py, m.bits.into_words()).reshape([rows, words])
    }

    /// This map with layer files laid on it in order (the map itself is unchanged).
    fn with_layers(&self, py: Python<'_>, layers: Vec<PathBuf>) -> PyResult<Map> {
        let map = py
            .detach(|| (*self.map).clone().with_layers(&layers))
            .map_err(err)?;
        Ok(Map::of(map))
    }

    /// What changes from this map (before) to `other` (after, the same grid), as
    /// `hexsight diff --json`: a dict with `gained` and `lost` (pair counts),
    /// `first_gained`/`first_lost` (example pairs of labels), `sees` and `seen_by`
    /// (int64 arrays: after minus before, per hex) and `views` (for each hex of
    /// `views`, its label to `{"gained": bool array, "lost": bool array}`).
    #[pyo3(signature = (other, from_zone=None, to_zone=None, views=None))]
    fn diff<'py>(
        &self,
        py: Python<'py>,
        other: &Map,
        from_zone: Option<&str>,
        to_zone: Option<&str>,
        views: Option<Vec<String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (before, after) = (&*self.map, &*other.map);
        hexsight_analysis::engine::diff::check_same_grid(before, after).map_err(err)?;
        let sel = Selection {
            from: self.zone("from_zone", from_zone)?,
            to: self.zone("to_zone", to_zone)?,
        };
        let views = views
            .unwrap_or_default()
            .iter()
            .map(|h| self.index(h))
            .collect::<PyResult<Vec<usize>>>()?;
        let d = py
            .detach(|| {
                diff_memory(before, after, &sel)?;
                let (e0, e1) = (Engine::try_new(before)?, Engine::try_new(after)?);
                diff_of(&e0, &e1, &sel, &views, &Control::default())
            })
            .map_err(err)?;
        let label = |i: usize| before.label(before.hex_of(i));
        let pairs = |v: &[(usize, usize)]| -> Vec<(String, String)> {
            v.iter().map(|&(i, j)| (label(i), label(j))).collect()
        };
        let out = PyDict::new(py);
        out.set_item("gained", d.gained)?;
        out.set_item("lost", d.lost)?;
        out.set_item("first_gained", pairs(&d.first_gained))?;
        out.set_item("first_lost", pairs(&d.first_lost))?;
        out.set_item("sees", PyArray1::from_vec(py, d.sees))?;
        out.set_item("seen_by", PyArray1::from_vec(py, d.seen_by))?;
        let vs = PyDict::new(py);
        let n = before.len();
        for v in &d.views {
            let mask = |hexes: &[usize]| {
                let mut m = vec![false; n];
                hexes.iter().for_each(|&j| m[j] = true);
                PyArray1::from_vec(py, m)
            };
            let one = PyDict::new(py);
            one.set_item("gained", mask(&v.gained))?;
            one.set_item("lost", mask(&v.lost))?;
            vs.set_item(label(v.from), one)?;
        }
        out.set_item("views", vs)?;
        Ok(out)
    }

    /// Per hex, the lowest height in levels above its ground (0 to `up_to`) at which
    /// `hex` sees a target there, as `hexsight viewshed --min-height`: an int32 array,
    /// -1 (`hexsight.NOT_SEEN`) where none is seen up to `up_to`. With `kind`
    /// (`"mech"`, `"infantry:prone"`) the target is a unit of that kind standing alone
    /// there, seen by a unit of `observer_kind` (else the unit in `hex`, else `kind`).
    #[pyo3(signature = (hex, kind=None, observer_kind=None, up_to=10))]
    fn min_height<'py>(
        &self,
        py: Python<'py>,
        hex: &str,
        kind: Option<&str>,
        observer_kind: Option<&str>,
        up_to: u32,
    ) -> PyResult<Bound<'py, PyArray1<i32>>> {
        let i = self.index(hex)?;
        let map = &*self.map;
        if up_to > MAX_UP_TO {
            return Err(err(format!(
                "up_to {up_to} is too high: give 0 to {MAX_UP_TO} levels"
            )));
        }
        if observer_kind.is_some() && kind.is_none() {
            return Err(err("observer_kind needs kind (the target's)".to_string()));
        }
        let stand = |param: &str, t: Option<&str>| {
            t.map(|t| Stand::parse(map, param, t))
                .transpose()
                .map_err(err)
        };
        let (target, observer) = (stand("kind", kind)?, stand("observer_kind", observer_kind)?);
        let h = match &target {
            Some(t) => py.detach(|| {
                min_heights_as(map, i, t, observer.as_ref(), up_to, &Control::default())
            }),
            None => {
                let shared = self.engine(py)?;
                py.detach(|| min_heights(shared.engine(), i, up_to, &Control::default()))
            }
        }
        .map_err(err)?;
        Ok(PyArray1::from_vec(
            py,
            h.into_iter()
                .map(|x| x.map_or(NOT_SEEN, |x| x as i32))
                .collect(),
        ))
    }

    /// Saves the map as a map file (`.json`).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        self.map.save(&path).map_err(err)
    }
}

/// Loads a map file (`.json`) with its ruleset, then lays the `layers` files on it
/// in order (as the command line's `--layer`).
#[pyfunction]
#[pyo3(signature = (path, layers=None))]
fn load(py: Python<'_>, path: PathBuf, layers: Option<Vec<PathBuf>>) -> PyResult<Map> {
    let map = py
        .detach(|| {
            let map = hexsight_analysis::Map::load(&path)?;
            map.with_layers(layers.as_deref().unwrap_or_default())
        })
        .map_err(err)?;
    Ok(Map::of(map))
}

/// Realistic synthetic terrain, as `hexsight generate`; saved to `out` when given.
#[pyfunction]
#[pyo3(signature = (cols=30, rows=30, seed=1, ruleset="geometric", pointy=false, out=None))]
fn generate(
    py: Python<'_>,
    cols: u32,
    rows: u32,
    seed: u64,
    ruleset: &str,
    pointy: bool,
    out: Option<PathBuf>,
) -> PyResult<Map> {
    let g = Generator {
        cols,
        rows,
        seed,
        ruleset: ruleset.to_string(),
        layout: Layout {
            orientation: if pointy {
                Orientation::Pointy
            } else {
                Orientation::Flat
            },
            stagger: Stagger::Odd,
        },
        dense: false,
    };
    let map = py.detach(|| generate_map(&g)).map_err(err)?;
    if let Some(p) = out {
        map.save(&p).map_err(err)?;
    }
    Ok(Map::of(map))
}

#[pymodule]
fn _hexsight(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Map>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(generate, m)?)?;
    m.add("NOT_SEEN", NOT_SEEN)?;
    m.add("HexsightError", m.py().get_type::<HexsightError>())?;
    m.add("TooLargeError", m.py().get_type::<TooLargeError>())?;
    m.add("CancelledError", m.py().get_type::<CancelledError>())?;
    Ok(())
}
