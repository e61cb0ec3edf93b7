//! Tuning evaluation weights from game results (Texel's method).
//!
//! A game's evaluation is `Σ weight × feature` ([`Evaluation::eval_terms`](crate::game::Evaluation::eval_terms)). From
//! quiet positions of finished games, each labelled with the game's result from the mover's
//! view (1 a win, ½ a draw, 0 a loss), the tuner fits the weights so that a logistic of the
//! evaluation, `p = 1 / (1 + e^(−k·eval/100))`, predicts the results: it minimises the mean
//! logistic loss `−(y·ln p + (1 − y)·ln(1 − p))`. The scale `k` is fitted first with the
//! current weights (a one-dimensional search), then held while Adam moves the weights; the
//! weight that sets the unit (100 = one point) never moves, so the scale stays meaningful.
//! Everything is deterministic: the samples come in a fixed order and the sums run in it.

pub mod records;
pub mod run;

use crate::cli::CancelToken;

/// One labelled position: its features from the mover's view and the result for the mover.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub features: Vec<f64>,
    /// 1 (the mover won), 0.5 (draw) or 0 (lost).
    pub result: f64,
}

/// How to fit.
#[derive(Debug, Clone, Copy)]
pub struct FitOptions {
    pub iterations: usize,
    /// Adam's step size, in weight units (hundredths of a point).
    pub rate: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            iterations: 2000,
            rate: 1.0,
        }
    }
}

/// What a fit found.
#[derive(Debug, Clone)]
pub struct Fit {
    pub scale: f64,
    pub weights: Vec<f64>,
    pub loss_before: f64,
    pub loss_after: f64,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn evaluation(weights: &[f64], features: &[f64]) -> f64 {
    weights.iter().zip(features).map(|(w, f)| w * f).sum()
}

/// The mean logistic loss of `weights` at scale `k` over `samples`.
pub fn loss(samples: &[Sample], weights: &[f64], k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let total: f64 = samples
        .iter()
        .map(|s| {
            let p = sigmoid(k * evaluation(weights, &s.features) / 100.0).clamp(1e-12, 1.0 - 1e-12);
            -(s.result * p.ln() + (1.0 - s.result) * (1.0 - p).ln())
        })
        .sum();
    total / samples.len() as f64
}

/// The scale `k` in [0.01, 20] that fits `weights` best (golden-section search on the loss).
pub fn fit_scale(samples: &[Sample], weights: &[f64]) -> f64 {
    let (mut a, mut b) = (0.01f64, 20.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - ratio * (b - a);
    let mut d = a + ratio * (b - a);
    let (mut fc, mut fd) = (loss(samples, weights, c), loss(samples, weights, d));
    for _ in 0..80 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - ratio * (b - a);
            fc = loss(samples, weights, c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + ratio * (b - a);
            fd = loss(samples, weights, d);
        }
    }
    (a + b) / 2.0
}

/// Fit the weights not `fixed`, starting from `initial`: the scale first, then Adam on the
/// logistic loss for `options.iterations` full-batch steps; `None` when `stop` (Ctrl-C)
/// ended it, looked at between steps.
pub fn fit(
    samples: &[Sample],
    initial: &[f64],
    fixed: &[bool],
    options: &FitOptions,
    stop: &CancelToken,
) -> Option<Fit> {
    let scale = fit_scale(samples, initial);
    let loss_before = loss(samples, initial, scale);
    let n = initial.len();
    let mut weights = initial.to_vec();
    let (mut m, mut v) = (vec![0.0; n], vec![0.0; n]);
    let (beta1, beta2, epsilon) = (0.9f64, 0.999f64, 1e-12);
    let count = samples.len().max(1) as f64;
    for step in 1..=options.iterations {
        if stop.is_cancelled() {
            return None;
        }
        let mut gradient = vec![0.0; n];
        for s in samples {
            let p = sigmoid(scale * evaluation(&weights, &s.features) / 100.0);
            let error = (p - s.result) * scale / 100.0;
            for (g, f) in gradient.iter_mut().zip(&s.features) {
                *g += error * f;
            }
        }
        for j in 0..n {
            if fixed.get(j).copied().unwrap_or(false) {
                continue;
            }
            let g = gradient[j] / count;
            m[j] = beta1 * m[j] + (1.0 - beta1) * g;
            v[j] = beta2 * v[j] + (1.0 - beta2) * g * g;
            let m_hat = m[j] / (1.0 - beta1.powi(step as i32));
            let v_hat = v[j] / (1.0 - beta2.powi(step as i32));
            weights[j] -= options.rate * m_hat / (v_hat.sqrt() + epsilon);
        }
    }
    let loss_after = loss(samples, &weights, scale);
    Some(Fit {
        scale,
        weights,
        loss_before,
        loss_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng, rngs::Xoshiro256PlusPlus};

    /// Positions with known weights: results drawn from the logistic model itself. The fit
    /// recovers the weights that made them.
    #[test]
    fn a_known_weight_is_recovered() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let truth = [100.0, 37.0, -12.0];
        let scale = 1.3;
        let samples: Vec<Sample> = (0..20_000)
            .map(|_| {
                let features = vec![
                    rng.random_range(-4..=4) as f64,
                    rng.random_range(-6..=6) as f64,
                    rng.random_range(0..=3) as f64,
                ];
                let p = sigmoid(scale * evaluation(&truth, &features) / 100.0);
                let result = if rng.random::<f64>() < p { 1.0 } else { 0.0 };
                Sample { features, result }
            })
            .collect();
        let options = FitOptions {
            iterations: 1500,
            rate: 1.0,
        };
        let run = || {
            super::fit(
                &samples,
                &[100.0, 0.0, 0.0],
                &[true, false, false],
                &options,
                &CancelToken::new(),
            )
            .expect("not stopped")
        };
        let fit = run();
        assert!(fit.loss_after < fit.loss_before, "{fit:?}");
        assert_eq!(fit.weights[0], 100.0, "the unit weight never moves");
        assert!((fit.weights[1] - 37.0).abs() < 4.0, "{fit:?}");
        assert!((fit.weights[2] + 12.0).abs() < 4.0, "{fit:?}");
        // The same input fits the same way.
        assert_eq!(run().weights, fit.weights);
    }

    #[test]
    fn the_scale_fits_a_known_model() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let weights = [100.0];
        let samples: Vec<Sample> = (0..20_000)
            .map(|_| {
                let features = vec![rng.random_range(-5..=5) as f64];
                let p = sigmoid(0.8 * evaluation(&weights, &features) / 100.0);
                let result = if rng.random::<f64>() < p { 1.0 } else { 0.0 };
                Sample { features, result }
            })
            .collect();
        let k = fit_scale(&samples, &weights);
        assert!((k - 0.8).abs() < 0.1, "{k}");
        assert_eq!(loss(&[], &weights, 1.0), 0.0);
    }
}
