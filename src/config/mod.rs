//! Configuration: the data model, loading with precise errors, and the search order.

mod model;

pub use model::*;
