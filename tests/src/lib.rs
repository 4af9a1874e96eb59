//! Conformance suite between the Rust mirror (`chessref-core`) and the EVM
//! contracts (`chessref-evm`): the generators of positions, illegal move
//! candidates and mutated states the integration tests in `tests/` feed to
//! both implementations.

pub mod candidates;
pub mod mutations;
pub mod positions;
pub mod report;
