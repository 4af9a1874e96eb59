//! Conformance suite between the Rust mirror and the EVM contracts.
