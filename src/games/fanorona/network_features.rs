//! Fanorona's learned evaluation: which feature set it reads (stones on points,
//! `crate::nnue::features::stones`) and the 9×5 board's network file.

use crate::nnue::features::stones::StoneFeatures;

use super::*;

/// The 9×5 board's network (see `NetworkFeatures::default_network`).
const TSIVY_NETWORK: &[u8] = include_bytes!("../../nnue/networks/tsivy.nnue");

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

    /// The board's feature set: White's view is the board as it is, Black's turned half a
    /// turn.
    #[inline]
    fn stone_features(&self) -> StoneFeatures {
        StoneFeatures {
            points: self.g.points,
        }
    }
}

impl NetworkFeatures for Fanorona {
    /// A stone of either colour on any point, from each side's view: 2 × points.
    fn network_inputs(&self) -> usize {
        self.stone_features().inputs()
    }

    fn network_id(&self) -> String {
        format!("fanorona {}x{}", self.g.files, self.g.ranks)
    }

    fn network_features(&self, pos: &FanoronaPosition, view: Player, out: &mut Vec<u16>) {
        out.extend(
            self.stone_features()
                .features(pos.stones, view.index())
                .map(|f| f as u16),
        );
    }

    /// By the stones on the board.
    fn network_bucket(&self, pos: &FanoronaPosition, buckets: usize) -> usize {
        self.stone_features().bucket(pos.stones, buckets)
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
            self.stone_features().refresh(net, pos.stones, acc);
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
        if let Some(net) = &self.network {
            self.stone_features()
                .update(net, before.stones, after.stones, parent, child);
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
        let bucket = self.stone_features().bucket(pos.stones, net.buckets);
        let score = net.output(acc, pos.side.index(), bucket);
        (self.toward_the_quiet_draw(pos, score), horizon)
    }

    fn set_network(&mut self, bytes: Option<&[u8]>) -> Result<(), NetworkError> {
        self.network = Network::load(bytes, &self.network_id(), self.network_inputs())?;
        Ok(())
    }
}
