//! Mismatch bookkeeping: every disagreement is recorded with enough to
//! reproduce it (state hex, move, both answers), then reported at once.

use std::fmt::Write;

/// Collected mismatches and counters of one run.
#[derive(Debug, Default)]
pub struct Report {
    /// One line per disagreement.
    pub mismatches: Vec<String>,
    /// Comparisons made.
    pub comparisons: u64,
    /// How often each section 6 rejection code was compared (index = code).
    pub rejections: [u64; 15],
    /// How often each section 7 invalid-state code was compared (index = code).
    pub invalid_states: [u64; 9],
}

impl Report {
    /// Records one comparison; a mismatch if `rust != evm`.
    pub fn compare<T: PartialEq + std::fmt::Debug>(
        &mut self,
        what: &str,
        context: impl FnOnce() -> String,
        rust: T,
        evm: T,
    ) {
        self.comparisons += 1;
        if rust != evm {
            self.mismatches
                .push(format!("{what}: rust={rust:?} evm={evm:?} | {}", context()));
        }
    }

    /// Panics with every mismatch (the first 40 in full) if there is any.
    pub fn assert_clean(&self, title: &str) {
        if self.mismatches.is_empty() {
            return;
        }
        let mut text = format!(
            "{title}: {} mismatches in {} comparisons\n",
            self.mismatches.len(),
            self.comparisons
        );
        for line in self.mismatches.iter().take(40) {
            let _ = writeln!(text, "  {line}");
        }
        panic!("{text}");
    }
}
