//! Row staging in shared memory (`STEP13_ROW_STAGING`), the events that time the
//! stages, and what a run leaves on the device (the row index, the intermediates the
//! tests compare with the twins).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use harness::query::QueryError;

use crate::groupby::Decoded;
use crate::query::Summary;
use crate::tiles;

use super::cuda::err;
use super::error::DeviceError;

/// of up to 96 bytes on average; a block whose rows are longer reads them in place.
pub const STAGE_BYTES: u32 = 24 << 10;

/// `STEP13_ROW_STAGING=auto|always|never`: whether `decode_aggregate` copies its
/// block's rows into shared memory first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staging {
    /// When the occupancy API says it costs no occupancy (the default).
    Auto = 0,
    /// Always (a block whose rows do not fit reads them in place).
    Always = 1,
    /// Never.
    Never = 2,
}

impl Staging {
    /// From `STEP13_ROW_STAGING` (unset: `auto`).
    ///
    /// # Errors
    /// [`DeviceError::Staging`] for another value.
    pub fn from_env() -> Result<Staging, DeviceError> {
        match std::env::var("STEP13_ROW_STAGING").as_deref() {
            Ok("always") => Ok(Staging::Always),
            Ok("never") => Ok(Staging::Never),
            Ok("auto") | Err(_) => Ok(Staging::Auto),
            Ok(other) => Err(DeviceError::Staging(other.to_string())),
        }
    }
}

/// The row index on the device.
pub(super) struct DeviceIndex {
    pub(super) bitmaps: CudaSlice<u32>,
    pub(super) counts: CudaSlice<u32>,
    pub(super) functions: CudaSlice<u16>,
    pub(super) speculated: CudaSlice<u8>,
    pub(super) exact: CudaSlice<u8>,
    pub(super) first_rows: CudaSlice<u64>,
    pub(super) offsets: CudaSlice<u64>,
    pub(super) summary: Summary,
}

/// What the device computed at every stage, on the host.
#[derive(Clone, Debug, PartialEq)]
pub struct Intermediates {
    /// Bitmaps (after the repair), counts, functions and speculated states.
    pub tiles: tiles::Tiles,
    /// Every tile's exact start state.
    pub exact: Vec<u8>,
    /// Every tile's first row.
    pub first_rows: Vec<u64>,
    /// Every row's offset.
    pub offsets: Vec<u64>,
    /// The rows, the final state, the first and last offsets.
    pub summary: Summary,
    /// The table and the fallback rows, or the query's error before decoding.
    pub decoded: Result<Decoded, QueryError>,
}

/// CUDA events between the stages, for the report.
pub(super) struct Marks(Vec<(&'static str, cudarc::driver::CudaEvent)>);

impl Marks {
    const TIMING: Option<cudarc::driver::sys::CUevent_flags> =
        Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);

    pub(super) fn start(s: &Arc<CudaStream>) -> Result<Marks, DeviceError> {
        Ok(Marks(vec![(
            "start",
            s.record_event(Self::TIMING).map_err(err("event"))?,
        )]))
    }

    pub(super) fn mark(
        &mut self,
        s: &Arc<CudaStream>,
        name: &'static str,
    ) -> Result<(), DeviceError> {
        self.0
            .push((name, s.record_event(Self::TIMING).map_err(err("event"))?));
        Ok(())
    }

    /// Milliseconds from each mark to the next, named by the later one.
    pub(super) fn times(&self) -> Result<Vec<(&'static str, f32)>, DeviceError> {
        self.0
            .windows(2)
            .map(|w| Ok((w[1].0, w[0].1.elapsed_ms(&w[1].1).map_err(err("event"))?)))
            .collect()
    }
}
