//! placeholder
#![forbid(unsafe_code)]
pub mod binary;
pub mod convert;
pub mod error;
pub mod model;
pub use error::{Error, Region};
pub use model::*;
