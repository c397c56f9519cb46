//! What a deployment configures and the use cases read: each chain's contracts and
//! confirmation depth, and which token settles each currency on each chain. Values, not
//! use cases: built once from configuration (`stablepay-config`) by both binaries.

mod chains;
mod price_feeds;
mod tokens;

pub use chains::*;
pub use price_feeds::*;
pub use tokens::*;
