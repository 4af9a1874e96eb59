//! What the server's HTTP benches share: client tasks run at once, and the figures of
//! their latencies.

use std::time::{Duration, Instant};

/// The figures of one run.
#[derive(Clone, Copy, Debug)]
pub struct Figures {
    /// Requests answered.
    pub requests: usize,
    /// Requests per second over the run.
    pub rate: f64,
    /// Median latency.
    pub p50: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Slowest.
    pub max: Duration,
}

/// Runs `clients` (one per connection, each returning its requests' latencies) at once.
pub async fn measure<F>(clients: Vec<F>) -> Figures
where
    F: Future<Output = Vec<Duration>> + Send + 'static,
{
    let start = Instant::now();
    let tasks: Vec<_> = clients.into_iter().map(tokio::spawn).collect();
    let mut latencies = Vec::new();
    for task in tasks {
        latencies.extend(task.await.expect("client task"));
    }
    let elapsed = start.elapsed();
    latencies.sort();
    Figures {
        requests: latencies.len(),
        rate: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50: percentile(&latencies, 50.0),
        p99: percentile(&latencies, 99.0),
        max: *latencies.last().expect("at least one request"),
    }
}

/// The `p`th percentile of `sorted` (nearest rank).
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}
