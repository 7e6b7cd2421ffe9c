//! Maps made from other data: elevation models ([`dem`]) read from GeoTIFF ([`geotiff`]),
//! and MegaMek boards ([`megamek`]).

pub mod dem;
pub mod geotiff;
pub mod megamek;
