//! Gas figures: median, p90, max and a histogram.

use serde::Serialize;

/// Median, 90th percentile and maximum of a sample of gas figures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GasStats {
    /// Middle value (mean of the two middle ones for an even count, rounded down).
    pub median: u64,
    /// 90th percentile, nearest rank.
    pub p90: u64,
    /// Largest value.
    pub max: u64,
}

impl GasStats {
    /// The figures of `sample` (all zero when empty).
    pub fn of(sample: &[u64]) -> GasStats {
        if sample.is_empty() {
            return GasStats::default();
        }
        let mut sorted = sample.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        };
        // Nearest rank: the smallest value with at least 90% of the sample at or below it.
        let rank = (n * 9).div_ceil(10).max(1);
        GasStats {
            median,
            p90: sorted[rank - 1],
            max: sorted[n - 1],
        }
    }
}

/// A text histogram of `sample` in `buckets` equal-width bins, one line per
/// bin: `  45000..50000 | ########## 1234`.
pub fn histogram(sample: &[u64], buckets: usize) -> String {
    let (Some(&lo), Some(&hi)) = (sample.iter().min(), sample.iter().max()) else {
        return "  (no moves)\n".to_string();
    };
    let buckets = buckets.max(1);
    let width = ((hi - lo) / buckets as u64 + 1)
        .next_multiple_of(1000)
        .max(1000);
    let start = lo / 1000 * 1000;
    let mut counts = vec![0usize; ((hi - start) / width + 1) as usize];
    for &g in sample {
        counts[((g - start) / width) as usize] += 1;
    }
    let peak = counts.iter().copied().max().unwrap_or(1).max(1);
    let mut out = String::new();
    for (i, &c) in counts.iter().enumerate() {
        let from = start + i as u64 * width;
        let bar = "#".repeat((c * 50).div_ceil(peak));
        out.push_str(&format!("  {:>7}..{:<7} | {bar} {c}\n", from, from + width));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_known_samples() {
        assert_eq!(GasStats::of(&[]), GasStats::default());
        assert_eq!(
            GasStats::of(&[5]),
            GasStats {
                median: 5,
                p90: 5,
                max: 5
            }
        );
        let s: Vec<u64> = (1..=10).collect();
        assert_eq!(
            GasStats::of(&s),
            GasStats {
                median: 5,
                p90: 9,
                max: 10
            }
        );
        let s: Vec<u64> = (1..=11).rev().collect();
        assert_eq!(
            GasStats::of(&s),
            GasStats {
                median: 6,
                p90: 10,
                max: 11
            }
        );
    }

    #[test]
    fn histogram_counts_every_value() {
        let sample = [40_000, 41_000, 45_500, 60_000, 60_000];
        let text = histogram(&sample, 4);
        let total: usize = text
            .lines()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(total, sample.len());
        assert!(text.starts_with("    40000.."), "{text}");
    }
}
