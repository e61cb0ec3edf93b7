//! One time scale for every wall-clock bound of the tests: how long a reply may take, how
//! long a run may last, how long to wait for a line, the clock a game is played with.
//! Bounds are written for a quiet machine and stretched by [`time_scale`] on a loaded one,
//! so that a slow answer under load is not a failure while a hang still is.
//!
//! The scale is `SOWFAN_TEST_TIME_SCALE` (a number ≥ 1, e.g. `3` or `2.5`) when set; a CI
//! runner that shares its processors sets it. Otherwise it follows the machine's load:
//! `1 + load / processors`, from the 1-minute load average of `/proc/loadavg`, between 1 and
//! 8 (1 on a quiet machine, and where there is no `/proc/loadavg`). The load is read when a
//! test first asks (it changes during a run: the suite's own tests load the machine) and
//! kept for the rest of that test (a test runs on its own thread), so that the numbers a
//! test gives the engine and the bounds it checks them against agree.

use std::cell::Cell;
use std::sync::OnceLock;
use std::time::Duration;

/// The environment variable that fixes the scale.
pub const VARIABLE: &str = "SOWFAN_TEST_TIME_SCALE";

/// The largest scale derived from the load.
const MAX_FROM_LOAD: f64 = 8.0;

/// The factor every wall-clock bound is multiplied by (≥ 1).
pub fn time_scale() -> f64 {
    static FIXED: OnceLock<Option<f64>> = OnceLock::new();
    let fixed = *FIXED.get_or_init(|| {
        let text = std::env::var(VARIABLE).ok()?;
        match text.trim().parse::<f64>() {
            Ok(scale) if scale.is_finite() && scale >= 1.0 => Some(scale),
            _ => panic!("{VARIABLE} must be a number ≥ 1 (e.g. 3), got '{text}'"),
        }
    });
    if let Some(scale) = fixed {
        return scale;
    }
    thread_local! {
        static THIS_TEST: Cell<Option<f64>> = const { Cell::new(None) };
    }
    THIS_TEST.with(|scale| {
        let value = scale.get().unwrap_or_else(from_load);
        scale.set(Some(value));
        value
    })
}

/// `1 + load / processors` between 1 and [`MAX_FROM_LOAD`]; 1 when the load is unknown.
fn from_load() -> f64 {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next()?.parse::<f64>().ok());
    let processors = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    match load {
        Some(load) if load.is_finite() && load >= 0.0 => {
            (1.0 + load / processors).clamp(1.0, MAX_FROM_LOAD)
        }
        _ => 1.0,
    }
}

/// `quiet` (a bound on a quiet machine) stretched by [`time_scale`].
pub fn scaled(quiet: Duration) -> Duration {
    quiet.mul_f64(time_scale())
}

/// [`scaled`] milliseconds, for a number given to the engine or the runner (`movetime`, a
/// clock, `--ready-timeout`).
pub fn scaled_ms(quiet_ms: u64) -> u64 {
    scaled(Duration::from_millis(quiet_ms)).as_millis() as u64
}
