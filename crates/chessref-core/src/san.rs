//! internal
