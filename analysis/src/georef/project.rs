//! From a map's projected CRS to WGS 84 longitude/latitude, in pure Rust, for the
//! EPSG codes hexsight knows: UTM zones (WGS 84 `326zz`/`327zz`, ETRS89 `258zz`,
//! NAD83 `269zz`) and Web Mercator (`3857`). UTM uses Krüger's series to third
//! order in n (better than a millimetre within a zone, far more than a hex needs).

/// WGS 84 semi-major axis, metres.
const A: f64 = 6_378_137.0;
/// UTM scale on the central meridian.
const K0: f64 = 0.9996;
/// UTM false easting, metres.
const E0: f64 = 500_000.0;

/// A projection hexsight can invert.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Projection {
    /// Universal Transverse Mercator: zone 1 to 60, south or north, flattening.
    Utm {
        /// The zone, 1 to 60.
        zone: u32,
        /// In the southern hemisphere (false northing 10,000 km).
        south: bool,
        /// The ellipsoid's flattening.
        flattening: f64,
    },
    /// Spherical ("Web") Mercator, EPSG:3857.
    WebMercator,
}

/// WGS 84 flattening.
const WGS84_F: f64 = 1.0 / 298.257_223_563;
/// GRS 1980 flattening (ETRS89, NAD83): lon/lat on it are within a metre of WGS 84.
const GRS80_F: f64 = 1.0 / 298.257_222_101;

/// True for the common geographic (longitude/latitude) CRSs: a hex grid needs
/// lengths in one unit both ways, which degrees are not.
pub fn is_geographic(epsg: u32) -> bool {
    matches!(
        epsg,
        4326 | 4258 | 4269 | 4267 | 4283 | 4230 | 4277 | 4019 | 4979
    )
}

impl Projection {
    /// The projection of an EPSG code, or a sentence saying which codes are known.
    pub fn from_epsg(epsg: u32) -> Result<Projection, String> {
        let utm = |base: u32, south: bool, flattening: f64, max: u32| {
            let zone = epsg - base;
            (1..=max).contains(&zone).then_some(Projection::Utm {
                zone,
                south,
                flattening,
            })
        };
        let p = match epsg {
            3857 => Some(Projection::WebMercator),
            32601..=32660 => utm(32600, false, WGS84_F, 60),
            32701..=32760 => utm(32700, true, WGS84_F, 60),
            25801..=25860 => utm(25800, false, GRS80_F, 60),
            26901..=26923 => utm(26900, false, GRS80_F, 23),
            _ => None,
        };
        p.ok_or_else(|| {
            format!(
                "EPSG:{epsg} is not a CRS hexsight can project to longitude/latitude \
                 (known: UTM 326zz/327zz, ETRS89 UTM 258zz, NAD83 UTM 269zz, Web Mercator 3857); \
                 write in the map's own CRS (`crs` native) to keep its coordinates"
            )
        })
    }

    /// Longitude and latitude in degrees of a CRS point.
    pub fn unproject(&self, (x, y): (f64, f64)) -> (f64, f64) {
        match *self {
            Projection::WebMercator => ((x / A).to_degrees(), (y / A).sinh().atan().to_degrees()),
            Projection::Utm {
                zone,
                south,
                flattening,
            } => utm_inverse(zone, south, flattening, x, y),
        }
    }

    /// The CRS point of a longitude and latitude in degrees.
    pub fn project(&self, (lon, lat): (f64, f64)) -> (f64, f64) {
        match *self {
            Projection::WebMercator => (A * lon.to_radians(), A * lat.to_radians().tan().asinh()),
            Projection::Utm {
                zone,
                south,
                flattening,
            } => utm_forward(zone, south, flattening, lon, lat),
        }
    }
}

/// Krüger's series coefficients for flattening `f`: (n, A, alpha, beta, delta).
fn series(f: f64) -> (f64, f64, [f64; 3], [f64; 3], [f64; 3]) {
    let n = f / (2.0 - f);
    let (n2, n3) = (n * n, n * n * n);
    let big_a = A / (1.0 + n) * (1.0 + n2 / 4.0 + n2 * n2 / 64.0);
    let alpha = [
        n / 2.0 - 2.0 * n2 / 3.0 + 5.0 * n3 / 16.0,
        13.0 * n2 / 48.0 - 3.0 * n3 / 5.0,
        61.0 * n3 / 240.0,
    ];
    let beta = [
        n / 2.0 - 2.0 * n2 / 3.0 + 37.0 * n3 / 96.0,
        n2 / 48.0 + n3 / 15.0,
        17.0 * n3 / 480.0,
    ];
    let delta = [
        2.0 * n - 2.0 * n2 / 3.0 - 2.0 * n3,
        7.0 * n2 / 3.0 - 8.0 * n3 / 5.0,
        56.0 * n3 / 15.0,
    ];
    (n, big_a, alpha, beta, delta)
}

fn central_meridian(zone: u32) -> f64 {
    (zone as f64 * 6.0 - 183.0).to_radians()
}

fn false_northing(south: bool) -> f64 {
    if south { 10_000_000.0 } else { 0.0 }
}

fn utm_forward(zone: u32, south: bool, f: f64, lon: f64, lat: f64) -> (f64, f64) {
    let (n, big_a, alpha, _, _) = series(f);
    let (phi, dl) = (lat.to_radians(), lon.to_radians() - central_meridian(zone));
    let c = 2.0 * n.sqrt() / (1.0 + n);
    let t = (phi.sin().atanh() - c * (c * phi.sin()).atanh()).sinh();
    let xi = (t / dl.cos()).atan();
    let eta = (dl.sin() / (1.0 + t * t).sqrt()).atanh();
    let (mut e, mut nn) = (eta, xi);
    for (j, a) in alpha.iter().enumerate() {
        let k = 2.0 * (j + 1) as f64;
        e += a * (k * xi).cos() * (k * eta).sinh();
        nn += a * (k * xi).sin() * (k * eta).cosh();
    }
    (E0 + K0 * big_a * e, false_northing(south) + K0 * big_a * nn)
}

fn utm_inverse(zone: u32, south: bool, f: f64, x: f64, y: f64) -> (f64, f64) {
    let (_, big_a, _, beta, delta) = series(f);
    let xi = (y - false_northing(south)) / (K0 * big_a);
    let eta = (x - E0) / (K0 * big_a);
    let (mut xi1, mut eta1) = (xi, eta);
    for (j, b) in beta.iter().enumerate() {
        let k = 2.0 * (j + 1) as f64;
        xi1 -= b * (k * xi).sin() * (k * eta).cosh();
        eta1 -= b * (k * xi).cos() * (k * eta).sinh();
    }
    let chi = (xi1.sin() / eta1.cosh()).asin();
    let mut phi = chi;
    for (j, d) in delta.iter().enumerate() {
        phi += d * (2.0 * (j + 1) as f64 * chi).sin();
    }
    let lon = central_meridian(zone) + (eta1.sinh() / xi1.cos()).atan();
    (lon.to_degrees(), phi.to_degrees())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference values from PROJ (`gdaltransform -s_srs EPSG:4326 -t_srs EPSG:...`).
    const REFERENCE_31N: (u32, f64, f64, f64, f64) = (
        32631,
        2.2945,
        48.8583,
        448_251.898_290_58,
        5_411_943.793_808_41,
    );
    const REFERENCE_33S: (u32, f64, f64, f64, f64) = (
        32733,
        15.5,
        -33.9249,
        546_214.733_836_399,
        6_246_058.366_946_95,
    );

    #[test]
    fn utm_matches_proj() {
        let cases = [
            // (epsg, lon, lat, easting, northing)
            (32631, 3.0, 0.0, 500_000.0, 0.0),
            REFERENCE_31N,
            REFERENCE_33S,
        ];
        for (epsg, lon, lat, e, n) in cases {
            let p = Projection::from_epsg(epsg).unwrap();
            let (x, y) = p.project((lon, lat));
            assert!(
                (x - e).abs() < 0.01 && (y - n).abs() < 0.01,
                "{epsg}: {x} {y}"
            );
            let (lo, la) = p.unproject((e, n));
            assert!(
                (lo - lon).abs() < 1e-7 && (la - lat).abs() < 1e-7,
                "{lo} {la}"
            );
        }
    }

    #[test]
    fn web_mercator_round_trips() {
        let p = Projection::from_epsg(3857).unwrap();
        let (lo, la) = p.unproject(p.project((12.5, 41.9)));
        assert!((lo - 12.5).abs() < 1e-9 && (la - 41.9).abs() < 1e-9);
    }

    #[test]
    fn unknown_codes_are_refused_with_the_known_ones() {
        let e = Projection::from_epsg(2154).unwrap_err();
        assert!(e.contains("EPSG:2154") && e.contains("326zz"), "{e}");
        assert!(Projection::from_epsg(32661).is_err());
        assert!(is_geographic(4326));
    }
}
