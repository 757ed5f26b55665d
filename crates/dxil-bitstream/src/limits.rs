//! Hard limits of the reader (the writer enforces the same ones, so that everything it writes
//! can be read back). LLVM has no such limits; these are far above anything DXC writes
//! (nesting depth 3, at most a few dozen abbreviations per block, at most ~10 operands each)
//! and keep hostile input from driving memory use or time beyond a small multiple of its size.

/// Maximum number of nested blocks open at once (the top-level block counts as 1).
pub const MAX_NESTING_DEPTH: usize = 32;

/// Maximum number of application abbreviations visible in one block (BLOCKINFO ones included),
/// and maximum number BLOCKINFO may register for one block id.
pub const MAX_ABBREVS_PER_BLOCK: usize = 4096;

/// Maximum number of operands in one abbreviation definition.
pub const MAX_ABBREV_OPERANDS: usize = 256;
