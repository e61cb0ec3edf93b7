//! Each engine's totals: the share of perfect moves (with a 95 % Wilson interval) and the
//! average loss in points (with a 95 % normal interval), and the summary table.

/// One position's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judged {
    /// A legal move: its exact value, the best and the worst move's (half-points, the
    /// mover's).
    Move { value: i32, best: i32, worst: i32 },
    /// A move the rules refuse (or none of the solved moves).
    Illegal,
    /// No move: the engine crashed or did not answer in time.
    Failed,
}

impl Judged {
    pub fn value(&self) -> Option<i32> {
        match self {
            Judged::Move { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// Half-points given away (never negative: the best is the best).
    pub fn loss(&self) -> Option<i32> {
        match self {
            Judged::Move { value, best, .. } => Some((best - value).max(0)),
            _ => None,
        }
    }
}

/// One engine's totals.
#[derive(Debug, Clone)]
pub struct EngineStats {
    pub name: String,
    pub limits: String,
    /// Losses in half-points of the judged moves.
    losses: Vec<i32>,
    /// The same for the critical positions: where some move gives value away.
    critical_losses: Vec<i32>,
    pub illegal: usize,
    pub failed: usize,
}

impl EngineStats {
    pub fn new(name: String, limits: String) -> EngineStats {
        EngineStats {
            name,
            limits,
            losses: Vec::new(),
            critical_losses: Vec::new(),
            illegal: 0,
            failed: 0,
        }
    }

    pub fn add(&mut self, judged: Judged) {
        match judged {
            Judged::Move { best, worst, .. } => {
                self.losses.extend(judged.loss());
                if worst < best {
                    self.critical_losses.extend(judged.loss());
                }
            }
            Judged::Illegal => self.illegal += 1,
            Judged::Failed => self.failed += 1,
        }
    }

    pub fn judged(&self) -> usize {
        self.losses.len()
    }

    pub fn perfect(&self) -> usize {
        self.losses.iter().filter(|&&l| l == 0).count()
    }

    /// Critical positions judged (where some move gives value away), and how many of them
    /// got a perfect move.
    pub fn critical(&self) -> (usize, usize) {
        let perfect = self.critical_losses.iter().filter(|&&l| l == 0).count();
        (self.critical_losses.len(), perfect)
    }

    /// The share of perfect moves and its 95 % Wilson interval, in per cent.
    pub fn perfect_share(&self) -> Option<(f64, f64, f64)> {
        wilson(self.perfect(), self.judged())
    }

    /// The same among the critical positions.
    pub fn critical_share(&self) -> Option<(f64, f64, f64)> {
        let (n, perfect) = self.critical();
        wilson(perfect, n)
    }

    /// The average loss in points and the half-width of its 95 % interval.
    pub fn average_loss(&self) -> Option<(f64, f64)> {
        let n = self.judged();
        if n == 0 {
            return None;
        }
        let points: Vec<f64> = self.losses.iter().map(|&l| l as f64 / 2.0).collect();
        let mean = points.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            points.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some((mean, 1.96 * (var / n as f64).sqrt()))
    }

    /// The largest loss, in points.
    pub fn worst(&self) -> f64 {
        self.losses.iter().copied().max().unwrap_or(0) as f64 / 2.0
    }
}

/// A share `k / n` in per cent and its 95 % Wilson interval.
fn wilson(k: usize, n: usize) -> Option<(f64, f64, f64)> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z: f64 = 1.96;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    Some((100.0 * p, 100.0 * (centre - half), 100.0 * (centre + half)))
}

/// The summary: a line per engine.
pub fn table(engines: &[EngineStats]) -> String {
    let width = engines
        .iter()
        .map(|e| e.name.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut text = format!(
        "{:width$}  {:>9}  {:>7}  {:>21}  {:>16}  {:>5}  {:>8}  {:>21}  {:>7}  {:>6}\n",
        "engine",
        "positions",
        "perfect",
        "perfect % (95% CI)",
        "avg loss ± 95%",
        "worst",
        "critical",
        "perfect % of critical",
        "illegal",
        "failed"
    );
    let share_text = |share: Option<(f64, f64, f64)>| match share {
        Some((p, lo, hi)) => format!("{p:.1} ({lo:.1}-{hi:.1})"),
        None => "-".to_string(),
    };
    for e in engines {
        let share = share_text(e.perfect_share());
        let critical = share_text(e.critical_share());
        let loss = match e.average_loss() {
            Some((mean, half)) => format!("{mean:.3} ± {half:.3}"),
            None => "-".to_string(),
        };
        text.push_str(&format!(
            "{:width$}  {:>9}  {:>7}  {:>21}  {:>16}  {:>5}  {:>8}  {:>21}  {:>7}  {:>6}\n",
            e.name,
            e.judged(),
            e.perfect(),
            share,
            loss,
            e.worst(),
            e.critical().0,
            critical,
            e.illegal,
            e.failed
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_losses_and_intervals() {
        let mut e = EngineStats::new("x".into(), "movetime=100".into());
        for judged in [
            Judged::Move {
                value: 8,
                best: 8,
                worst: 8,
            },
            Judged::Move {
                value: 4,
                best: 8,
                worst: 0,
            },
            Judged::Move {
                value: 8,
                best: 8,
                worst: 0,
            },
            Judged::Move {
                value: 0,
                best: 8,
                worst: 0,
            },
            Judged::Illegal,
            Judged::Failed,
        ] {
            e.add(judged);
        }
        assert_eq!((e.judged(), e.perfect(), e.illegal, e.failed), (4, 2, 1, 1));
        let (p, lo, hi) = e.perfect_share().unwrap();
        assert_eq!(p, 50.0);
        assert!(lo < 50.0 && hi > 50.0 && lo > 0.0 && hi < 100.0);
        // Losses 0, 2, 0 and 4 points: mean 1.5.
        let (mean, half) = e.average_loss().unwrap();
        assert_eq!(mean, 1.5);
        assert!(half > 0.0);
        assert_eq!(e.worst(), 4.0);
        // The first position has no wrong move: three are critical, one got a perfect move.
        assert_eq!(e.critical(), (3, 1));
        assert!((e.critical_share().unwrap().0 - 100.0 / 3.0).abs() < 1e-9);
        assert!(table(&[e]).contains("50.0"));
    }
}
