//! HTTP JSON reference checker.
