//! NumPy `.npy` (format 1.0) output of a matrix as `uint8`, readable by `numpy.load`,
//! with the labels in a JSON sidecar (`NAME.labels.json` beside `NAME.npy`).

use crate::atomic::AtomicFile;
use crate::engine::matrix::{Matrix, Selection};
use crate::error::{Error, Result};
use crate::map::Map;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the `.npy` bytes: 1 where the observer (row) sees the target (column), else 0.
///
/// Rows are expanded from bits to bytes in parallel, a batch of about 16 MiB at
/// a time, and each batch is written in order while the next is expanded, so the
/// file costs little more than its writing.
pub fn write(m: &Matrix, out: &mut dyn Write) -> std::io::Result<()> {
    write_batched(m, out, 16 << 20)
}

/// [`write`] in batches of about `batch_bytes`.
fn write_batched(m: &Matrix, out: &mut dyn Write, batch_bytes: usize) -> std::io::Result<()> {
    use rayon::prelude::*;
    let (rows, cols) = (m.bits.len(), m.bits.cols());
    header(rows, cols, out)?;
    if cols == 0 {
        return Ok(());
    }
    let spread = Spread::new();
    let batch_rows = (batch_bytes / cols).clamp(1, rows.max(1));
    // Rows `first..` of the matrix as bytes into `buf`, in parallel; returns the bytes filled.
    let fill = |buf: &mut [u8], first: usize| -> usize {
        let n = batch_rows.min(rows - first);
        buf[..n * cols]
            .par_chunks_mut(cols)
            .enumerate()
            .for_each(|(k, line)| spread.row(m.bits.row(first + k), line));
        n * cols
    };
    let mut buf = vec![0u8; batch_rows * cols];
    let mut filled = fill(&mut buf, 0);
    // With more than one worker, the next batch is filled while this one is written.
    let mut next = if rayon::current_num_threads() > 1 && rows > batch_rows {
        vec![0u8; batch_rows * cols]
    } else {
        Vec::new()
    };
    for first in (batch_rows..rows).step_by(batch_rows) {
        if next.is_empty() {
            out.write_all(&buf[..filled])?;
            filled = fill(&mut buf, first);
            continue;
        }
        let written = std::thread::scope(|s| {
            let filling = s.spawn(|| fill(&mut next, first));
            let written = out.write_all(&buf[..filled]);
            (
                written,
                filling.join().expect("filling a batch does not panic"),
            )
        });
        written.0?;
        filled = written.1;
        std::mem::swap(&mut buf, &mut next);
    }
    out.write_all(&buf[..filled])
}

/// Writes a `rows` x `cols` uint8 array given row by row in `data`.
pub fn write_bytes(
    rows: usize,
    cols: usize,
    data: &[u8],
    out: &mut dyn Write,
) -> std::io::Result<()> {
    header(rows, cols, out)?;
    out.write_all(data)
}

fn header(rows: usize, cols: usize, out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(&header_bytes(rows, cols))
}

/// The `.npy` header of a `rows` x `cols` uint8 array, a multiple of 64 bytes long.
fn header_bytes(rows: usize, cols: usize) -> Vec<u8> {
    header_for("|u1", &[rows, cols])
}

/// The `.npy` header of a C-order array of `descr` (`|u1`, `<u4`, `<f4`) and `shape`,
/// a multiple of 64 bytes long.
pub(crate) fn header_for(descr: &str, shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = match dims.as_slice() {
        [one] => format!("{one},"),
        _ => dims.join(", "),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({shape}), }}");
    // Magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
    let unpadded = 10 + dict.len() + 1;
    let pad = (64 - unpadded % 64) % 64;
    let header = format!("{dict}{}\n", " ".repeat(pad));
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    bytes
}

/// Rows of bits spread to one 0/1 byte a bit.
struct Spread {
    /// Byte `b` of a word as eight 0/1 bytes, little end first.
    table: [u64; 256],
}

impl Spread {
    fn new() -> Spread {
        Spread {
            table: std::array::from_fn(|b| {
                (0..8).fold(0, |v, k| v | (b as u64 >> k & 1) << (8 * k))
            }),
        }
    }

    /// Writes the bits of `words` (a row, low bit first) as bytes into `line`, one a bit.
    fn row(&self, words: &[u64], line: &mut [u8]) {
        let cols = line.len();
        let mut eights = line.chunks_exact_mut(8);
        for (c, chunk) in (&mut eights).enumerate() {
            let byte = words[c / 8] >> (8 * (c % 8)) & 0xff;
            chunk.copy_from_slice(&self.table[byte as usize].to_le_bytes());
        }
        let done = cols - eights.into_remainder().len();
        for (c, b) in line.iter_mut().enumerate().skip(done) {
            *b = (words[c / 64] >> (c % 64) & 1) as u8;
        }
    }
}

/// What a `.npy` file holds: a matrix's bits (as 0/1), or bytes given row by row.
#[derive(Clone, Copy)]
pub enum Body<'a> {
    /// 1 where the row's observer sees the column's target, else 0.
    Bits(&'a Matrix),
    /// `rows` x `cols` bytes, row by row.
    Bytes {
        /// Rows (observers).
        rows: usize,
        /// Columns (targets).
        cols: usize,
        /// The bytes, row by row.
        data: &'a [u8],
    },
}

impl Body<'_> {
    fn shape(&self) -> (usize, usize) {
        match *self {
            Body::Bits(m) => (m.bits.len(), m.bits.cols()),
            Body::Bytes { rows, cols, .. } => (rows, cols),
        }
    }

    /// Writes the file through a writer (where it cannot be mapped).
    fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        match *self {
            Body::Bits(m) => write(m, out),
            Body::Bytes { rows, cols, data } => write_bytes(rows, cols, data, out),
        }
    }
}

/// Saves the matrix as `.npy` at `path`, atomically, with its labels sidecar
/// ([`sidecar`]; see [`save_with`]).
pub fn save(map: &Map, m: &Matrix, path: &Path) -> Result<()> {
    save_with(path, Body::Bits(m), || sidecar(map, m))
}

/// Saves `body` as `.npy` at `path`, atomically, with the sidecar `side` makes
/// ([`sidecar_path`]), made meanwhile and put in place only once the matrix is.
///
/// On a file system that can reserve space (Linux: ext4, xfs, btrfs, tmpfs), the bytes
/// are filled in place through a mapping of the file, rows in parallel
/// ([`AtomicFile::fill_mapped`]); elsewhere they go through a writer.
pub fn save_with(path: &Path, body: Body, side: impl FnOnce() -> String + Send) -> Result<()> {
    std::thread::scope(|s| {
        let side = s.spawn(|| -> Result<AtomicFile> {
            let side_path = sidecar_path(path);
            let mut file = AtomicFile::create(&side_path)?;
            file.writer()
                .write_all(side().as_bytes())
                .map_err(|e| Error::io(&e, &side_path))?;
            Ok(file)
        });
        let saved = save_body(body, path, PART);
        let side = side.join().expect("writing the sidecar does not panic");
        saved?;
        side?.commit()
    })
}

/// The `.npy` file alone (see [`save_with`]), filled in parts of about `part` bytes.
fn save_body(body: Body, path: &Path, part: usize) -> Result<()> {
    let (rows, cols) = body.shape();
    let head = header_bytes(rows, cols);
    let mut file = AtomicFile::create(path)?;
    let mapped = file.fill_mapped(head.len() + rows * cols, |bytes, pages| {
        let (top, rest) = bytes.split_at_mut(head.len());
        top.copy_from_slice(&head);
        fill_body(body, rest, part, &|part| pages.done(part));
    })?;
    if !mapped {
        body.write(file.writer()).map_err(|e| Error::io(&e, path))?;
    }
    file.commit()
}

/// The body's bytes, row by row, filled in parallel in parts of about `part` bytes
/// (whole rows); `done` is given each part once filled.
fn fill_body(body: Body, out: &mut [u8], part: usize, done: &(dyn Fn(&mut [u8]) + Sync)) {
    use rayon::prelude::*;
    let (_, cols) = body.shape();
    if cols == 0 {
        return;
    }
    let spread = Spread::new();
    let part_rows = (part / cols).max(1);
    out.par_chunks_mut(part_rows * cols)
        .enumerate()
        .for_each(|(k, part)| {
            let first = k * part_rows;
            match body {
                Body::Bits(m) => {
                    for (i, line) in part.chunks_mut(cols).enumerate() {
                        spread.row(m.bits.row(first + i), line);
                    }
                }
                Body::Bytes { data, .. } => {
                    let at = first * cols;
                    part.copy_from_slice(&data[at..at + part.len()]);
                }
            }
            done(part);
        });
}

/// About how many bytes of the body one worker fills at a time.
const PART: usize = 4 << 20;

/// The sidecar path for a `.npy` file: `out.npy` -> `out.labels.json`.
pub fn sidecar_path(npy: &Path) -> PathBuf {
    npy.with_extension("labels.json")
}

/// The sidecar's JSON: map, ruleset, row and column labels, and what the values mean.
pub fn sidecar(map: &Map, m: &Matrix) -> String {
    sidecar_for(
        map,
        &m.sel,
        "1 = the row's observer sees the column's target (clear or hindered), 0 = blocked",
    )
}

/// The sidecar for a selection with a description of the values.
pub fn sidecar_for(map: &Map, sel: &Selection, values: &str) -> String {
    let labels = |v: &[usize]| {
        v.iter()
            .map(|&i| map.label(map.hex_of(i)))
            .collect::<Vec<_>>()
    };
    let v = json!({
        "map": map.name,
        "ruleset": map.ruleset.name,
        "shape": [sel.from.len(), sel.to.len()],
        "values": values,
        "rows": labels(&sel.from),
        "cols": labels(&sel.to),
    });
    serde_json::to_string_pretty(&v).expect("JSON") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::matrix::BitMatrix;

    /// A `rows` x `cols` matrix with a pattern of bits, and its `.npy` bytes made bit by bit.
    fn patterned(rows: usize, cols: usize) -> (Matrix, Vec<u8>) {
        let mut bits = BitMatrix::with_shape(rows, cols);
        for (i, row) in bits.rows_mut().enumerate() {
            for j in 0..cols {
                if (i * 7 + j * 3) % 5 < 2 {
                    row[j / 64] |= 1 << (j % 64);
                }
            }
        }
        let m = Matrix {
            sel: Selection {
                from: (0..rows).collect(),
                to: (0..cols).collect(),
            },
            bits,
        };
        let mut want = Vec::new();
        header(rows, cols, &mut want).unwrap();
        for i in 0..rows {
            want.extend((0..cols).map(|j| u8::from(m.bits.get(i, j))));
        }
        (m, want)
    }

    /// Batches of a few rows, written while the next is filled by two workers, give
    /// the bytes of the matrix bit by bit, whatever the batch size.
    #[test]
    fn batches_written_while_the_next_fills_keep_every_byte() {
        let (rows, cols) = (37, 75);
        let (m, want) = patterned(rows, cols);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for batch in [1, cols, 3 * cols + 5, 16 << 20] {
            let mut got = Vec::new();
            pool.install(|| write_batched(&m, &mut got, batch)).unwrap();
            assert_eq!(got, want, "batches of {batch} bytes");
        }
    }

    /// Parts filled in parallel, of any size, give the bytes of the matrix bit by bit,
    /// and each part is reported once, covering the body without gaps.
    #[test]
    fn parts_filled_in_parallel_keep_every_byte() {
        let (rows, cols) = (41, 67);
        let (m, want) = patterned(rows, cols);
        let body_want = &want[header_bytes(rows, cols).len()..];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for part in [1, cols, 3 * cols + 5, 1 << 20] {
            let mut body = vec![7u8; rows * cols];
            let told = std::sync::Mutex::new(Vec::new());
            pool.install(|| {
                fill_body(Body::Bits(&m), &mut body, part, &|p| {
                    told.lock().unwrap().push((p.as_ptr() as usize, p.len()))
                })
            });
            assert!(body == body_want, "parts of {part} bytes");
            let mut told = told.into_inner().unwrap();
            told.sort();
            let mut end = body.as_ptr() as usize;
            for (start, n) in told {
                assert_eq!(start, end, "parts of {part} bytes: a gap or overlap");
                end = start + n;
            }
            assert_eq!(
                end,
                body.as_ptr() as usize + rows * cols,
                "parts of {part} bytes"
            );
        }
    }

    /// The file saved whole, in place through a mapping with its parts handed over
    /// as they are filled (by two workers, in parts of every size against the pages),
    /// holds the bytes of the matrix bit by bit (from its bits, or from bytes given),
    /// over an older file and into a new one, and leaves no temporary file; a device
    /// gets the writer's bytes.
    #[test]
    fn a_saved_file_holds_every_byte() {
        let dir = std::env::temp_dir().join(format!("hexsight-npy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.npy");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        for (rows, cols) in [(300, 300), (61, 4099), (5, 3), (1, 1)] {
            let (m, want) = patterned(rows, cols);
            for part in [1, 4096, 3 * 4096 + 17, 5 * cols, PART] {
                std::fs::remove_file(&path).ok();
                pool.install(|| save_body(Body::Bits(&m), &path, part))
                    .unwrap();
                assert!(
                    std::fs::read(&path).unwrap() == want,
                    "{rows} x {cols} in parts of {part} bytes, new"
                );
                pool.install(|| save_body(Body::Bits(&m), &path, part))
                    .unwrap();
                assert!(
                    std::fs::read(&path).unwrap() == want,
                    "{rows} x {cols} in parts of {part} bytes, over the old"
                );
                let data = &want[header_bytes(rows, cols).len()..];
                let bytes = Body::Bytes { rows, cols, data };
                pool.install(|| save_body(bytes, &path, part)).unwrap();
                assert!(
                    std::fs::read(&path).unwrap() == want,
                    "{rows} x {cols} bytes given, in parts of {part} bytes"
                );
            }
        }
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left");
        let (m, _) = patterned(20, 20);
        save_body(Body::Bits(&m), Path::new("/dev/null"), PART).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
