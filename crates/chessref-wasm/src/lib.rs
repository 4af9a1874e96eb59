//! WASM bindings of chessref-core.
