//! Match statistics: score, Elo difference with a 95 % interval, likelihood of superiority,
//! and a sequential probability ratio test on game pairs (pentanomial).
//!
//! The Elo line follows cutechess (trinomial: each game a win, draw or loss). The SPRT
//! follows fishtest's generalised SPRT on the logistic Elo scale: the two games of an opening
//! form one observation scored 0, ¼, ½, ¾ or 1, which removes most of the opening's bias.

use super::config::SprtSpec;

/// z for a two-sided 95 % interval.
const Z95: f64 = 1.959_963_984_540_054;

/// The Elo difference that a score fraction (0..1) means on the logistic scale.
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// The expected score of an Elo advantage.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function (Abramowitz & Stegun 7.1.26, absolute error below 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Results of one pairing, from the first engine's point of view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    /// Game pairs by the first engine's points in them: 0, ½, 1, 1½, 2.
    pub pentanomial: [u32; 5],
}

/// Elo difference, the half-width of its 95 % interval, and the likelihood of superiority.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EloEstimate {
    pub elo: f64,
    pub error: f64,
    pub los: f64,
}

impl Tally {
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    pub fn pairs(&self) -> u32 {
        self.pentanomial.iter().sum()
    }

    /// Points per game, 0..1 (`None` before the first game).
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// The cutechess estimate; `elo` is infinite at a 0 % or 100 % score, and `error` when
    /// the interval reaches one of them.
    pub fn elo(&self) -> Option<EloEstimate> {
        let n = self.games() as f64;
        let s = self.score()?;
        let (w, l, d) = (self.wins as f64, self.losses as f64, self.draws as f64);
        let variance = (w * (1.0 - s).powi(2) + l * (0.0 - s).powi(2) + d * (0.5 - s).powi(2)) / n;
        let margin = Z95 * (variance / n).sqrt();
        // An interval reaching past 0 % or 100 % means an unbounded Elo error.
        let high = (s + margin).min(1.0);
        let low = (s - margin).max(0.0);
        let error = (elo_from_score(high) - elo_from_score(low)) / 2.0;
        Some(EloEstimate {
            elo: elo_from_score(s),
            error,
            los: self.los(),
        })
    }

    /// Likelihood of superiority: the chance that the first engine is the stronger one,
    /// from wins and losses (draws carry no information about it).
    pub fn los(&self) -> f64 {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }

    /// The log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) from the game pairs.
    pub fn llr(&self, sprt: &SprtSpec) -> f64 {
        let pairs = self.pairs();
        if pairs == 0 {
            return 0.0;
        }
        // Empty bins get a tiny count so the fitted distributions stay strictly positive.
        let counts: Vec<f64> = self
            .pentanomial
            .iter()
            .map(|&c| if c == 0 { 1e-3 } else { c as f64 })
            .collect();
        let total: f64 = counts.iter().sum();
        let pdf: Vec<(f64, f64)> = counts
            .iter()
            .enumerate()
            .map(|(i, &c)| (i as f64 / 4.0, c / total))
            .collect();
        let s0 = score_from_elo(sprt.elo0);
        let s1 = score_from_elo(sprt.elo1);
        let fitted0 = mle_with_mean(&pdf, s0);
        let fitted1 = mle_with_mean(&pdf, s1);
        let per_pair: f64 = pdf
            .iter()
            .zip(fitted0.iter().zip(&fitted1))
            .map(|(&(_, p), (&q0, &q1))| p * (q1 / q0).ln())
            .sum();
        pairs as f64 * per_pair
    }
}

/// The SPRT's bounds: below `lower` H0 is accepted, above `upper` H1.
pub fn sprt_bounds(sprt: &SprtSpec) -> (f64, f64) {
    (
        (sprt.beta / (1.0 - sprt.alpha)).ln(),
        ((1.0 - sprt.beta) / sprt.alpha).ln(),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SprtVerdict {
    H0,
    H1,
}

pub fn sprt_verdict(tally: &Tally, sprt: &SprtSpec) -> Option<SprtVerdict> {
    let llr = tally.llr(sprt);
    let (lower, upper) = sprt_bounds(sprt);
    if llr >= upper {
        Some(SprtVerdict::H1)
    } else if llr <= lower {
        Some(SprtVerdict::H0)
    } else {
        None
    }
}

/// The distribution closest (maximum likelihood) to `pdf` — same support, as (value,
/// probability) — whose mean is `mean`: `q_i = p_i / (1 + λ (x_i − mean))`, with λ found by
/// bisection (the constraint is monotone in λ).
fn mle_with_mean(pdf: &[(f64, f64)], mean: f64) -> Vec<f64> {
    let constraint = |lambda: f64| -> f64 {
        pdf.iter()
            .map(|&(x, p)| p * (x - mean) / (1.0 + lambda * (x - mean)))
            .sum()
    };
    let max_x = pdf.iter().map(|&(x, _)| x).fold(f64::MIN, f64::max);
    let min_x = pdf.iter().map(|&(x, _)| x).fold(f64::MAX, f64::min);
    // Keep every 1 + λ (x − mean) positive.
    let mut low = -1.0 / (max_x - mean) + 1e-12;
    let mut high = 1.0 / (mean - min_x) - 1e-12;
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if constraint(mid) > 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    let lambda = (low + high) / 2.0;
    pdf.iter()
        .map(|&(x, p)| p / (1.0 + lambda * (x - mean)))
        .collect()
}

/// `12.3`, `inf`, `-inf` or `nan`, like cutechess.
pub fn format_elo(value: f64) -> String {
    if value.is_nan() {
        "nan".to_string()
    } else if value.is_infinite() {
        if value > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if value.abs() < 0.05 {
        // Not "-0.0".
        "0.0".to_string()
    } else {
        format!("{value:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, losses: u32, draws: u32) -> Tally {
        Tally {
            wins,
            losses,
            draws,
            pentanomial: [0; 5],
        }
    }

    #[test]
    fn elo_scale() {
        assert!((elo_from_score(0.5)).abs() < 1e-9);
        assert!((elo_from_score(0.75) - 190.848_501_887_865).abs() < 1e-6);
        assert!((score_from_elo(elo_from_score(0.3)) - 0.3).abs() < 1e-12);
        assert!((erf(0.5) - 0.520_499_877_8).abs() < 1e-6);
        assert!((erf(-1.0) + 0.842_700_792_9).abs() < 1e-6);
    }

    #[test]
    fn cutechess_figures() {
        // 30 - 10 - 10 by cutechess' formulas, worked out by hand: score 0.7, standard
        // deviation sqrt(0.16 / 50), so 147.19 +/- 95.14 Elo, LOS 99.92 %.
        let e = tally(30, 10, 10).elo().unwrap();
        assert!((e.elo - 147.19).abs() < 0.01, "{e:?}");
        assert!((e.error - 95.14).abs() < 0.01, "{e:?}");
        assert!((e.los - 0.9992).abs() < 0.0005, "{e:?}");
        let even = tally(5, 5, 10).elo().unwrap();
        assert!(even.elo.abs() < 1e-9 && (even.los - 0.5).abs() < 1e-9);
        assert_eq!(format_elo(tally(4, 0, 0).elo().unwrap().elo), "inf");
        assert_eq!(format_elo(-1e-9), "0.0");
        assert_eq!(format_elo(-12.345), "-12.3");
        assert!(tally(0, 0, 0).elo().is_none());
    }

    #[test]
    fn sprt_accepts_the_right_hypothesis() {
        let sprt = SprtSpec {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
        };
        let (lower, upper) = sprt_bounds(&sprt);
        assert!((lower + 2.944_438_979).abs() < 1e-6 && (upper - 2.944_438_979).abs() < 1e-6);
        let strong = Tally {
            pentanomial: [10, 40, 100, 80, 30],
            ..Tally::default()
        };
        let weak = Tally {
            pentanomial: [30, 80, 100, 40, 10],
            ..Tally::default()
        };
        let even = Tally {
            pentanomial: [1, 4, 10, 4, 1],
            ..Tally::default()
        };
        assert_eq!(sprt_verdict(&strong, &sprt), Some(SprtVerdict::H1));
        assert_eq!(sprt_verdict(&weak, &sprt), Some(SprtVerdict::H0));
        assert_eq!(sprt_verdict(&even, &sprt), None);
        // The figure of fishtest's LLRcalc (MLE_expected + LLR, zero bins as 1e-3), worked
        // out in Python for Ptnml [4, 0, 36, 7, 25] and elo0 = 0, elo1 = 20.
        let figure = Tally {
            pentanomial: [4, 0, 36, 7, 25],
            ..Tally::default()
        };
        let sprt20 = SprtSpec { elo1: 20.0, ..sprt };
        assert!(
            (figure.llr(&sprt20) - 2.969_65).abs() < 1e-4,
            "{}",
            figure.llr(&sprt20)
        );
        // One won pair proves nothing yet.
        let one = Tally {
            pentanomial: [0, 0, 0, 0, 1],
            ..Tally::default()
        };
        assert_eq!(sprt_verdict(&one, &sprt), None, "llr {}", one.llr(&sprt));
    }
}
