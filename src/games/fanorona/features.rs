//! Fanorona's learned evaluation: the network's features and the 9×5 board's network file.

use super::*;

/// The 9×5 board's network (see `NetworkFeatures::default_network`).
const TSIVY_NETWORK: &[u8] = include_bytes!("tsivy.nnue");

impl Fanorona {
    /// The game evaluating with its embedded network, where it has one.
    pub(super) fn with_default_network(mut self) -> Fanorona {
        self.network = Network::load_embedded(
            self.default_network(),
            &self.network_id(),
            self.network_inputs(),
        );
        self
    }

    /// The feature of a stone of `colour` on `point`, from `view`'s side: the point seen
    /// from that side (Black's board turned half a turn, a symmetry of every board here),
    /// and whether the stone is that side's own.
    #[inline]
    fn feature(&self, view: usize, colour: usize, point: usize) -> usize {
        let points = self.g.points;
        let seen = if view == WHITE {
            point
        } else {
            points - 1 - point
        };
        if colour == view { seen } else { points + seen }
    }

    /// One view's accumulator from scratch.
    fn refresh_view(
        &self,
        net: &Network,
        pos: &FanoronaPosition,
        view: usize,
        acc: &mut Accumulator,
    ) {
        let features = [WHITE, BLACK].into_iter().flat_map(|colour| {
            bits(pos.stones[colour]).map(move |point| self.feature(view, colour, point))
        });
        net.refresh(&mut acc.views[view], features);
    }
}

impl NetworkFeatures for Fanorona {
    /// A stone of either colour on any point, from each side's view: 2 × points.
    fn network_inputs(&self) -> usize {
        2 * self.g.points
    }

    fn network_id(&self) -> String {
        format!("fanorona {}x{}", self.g.files, self.g.ranks)
    }

    fn network_features(&self, pos: &FanoronaPosition, view: Player, out: &mut Vec<u16>) {
        for colour in [WHITE, BLACK] {
            for point in bits(pos.stones[colour]) {
                out.push(self.feature(view.index(), colour, point) as u16);
            }
        }
    }

    /// 9×5: trained by `sowfan train` on `sowfan datagen` games (docs/nnue.md); the
    /// smaller boards evaluate by hand.
    fn default_network(&self) -> Option<&'static [u8]> {
        match self.size {
            Size::Tsivy => Some(TSIVY_NETWORK),
            Size::Dimy | Size::Telo => None,
        }
    }

    fn accumulates(&self) -> bool {
        self.network.is_some()
    }

    fn refresh_accumulator(&self, pos: &FanoronaPosition, acc: &mut Accumulator) {
        if let Some(net) = &self.network {
            for view in [WHITE, BLACK] {
                self.refresh_view(net, pos, view, acc);
            }
        }
    }

    /// The stones a turn moved and captured: one stone leaves a point and arrives on
    /// another, and the captured stones leave theirs.
    fn update_accumulator(
        &self,
        before: &FanoronaPosition,
        _mv: FanoronaMove,
        after: &FanoronaPosition,
        parent: &Accumulator,
        child: &mut Accumulator,
    ) {
        let Some(net) = &self.network else {
            return;
        };
        *child = *parent;
        for view in [WHITE, BLACK] {
            for colour in [WHITE, BLACK] {
                let (old, new) = (before.stones[colour], after.stones[colour]);
                for point in bits(old & !new) {
                    net.sub(&mut child.views[view], self.feature(view, colour, point));
                }
                for point in bits(new & !old) {
                    net.add(&mut child.views[view], self.feature(view, colour, point));
                }
            }
        }
    }

    fn evaluate_accumulated(&self, pos: &FanoronaPosition, acc: &Accumulator) -> (i32, Horizon) {
        let Some(net) = &self.network else {
            return self.evaluate_at_horizon(pos);
        };
        let horizon = if self.is_quiet(pos) {
            Horizon::Quiet
        } else {
            Horizon::Forced
        };
        let score = net.output(acc, pos.side.index());
        (self.toward_the_quiet_draw(pos, score), horizon)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), String> {
        self.network = Network::load(bytes, &self.network_id(), self.network_inputs())?;
        Ok(())
    }
}
