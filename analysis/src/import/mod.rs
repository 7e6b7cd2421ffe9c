//! Maps made from other data: elevation models ([`dem`]) read from GeoTIFF ([`geotiff`]).

pub mod dem;
pub mod geotiff;
