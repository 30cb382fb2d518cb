//! The launches: the row index (stages 2 to 5: speculate the tiles, scan their
//! states, repair, count and scan the rows, bitmaps to offsets) and the GROUP BY
//! (decode and aggregate with warp-aggregated atomics).

use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::cuda::{Cuda, ROWS_PER_BLOCK, err};
use super::error::DeviceError;
use super::staging::{DeviceIndex, Marks, STAGE_BYTES};
use crate::groupby::{Decoded, SLOTS, Table};
use crate::limbs::{LIMBS, Limbs};
use crate::query::{Plan, Summary};
use crate::tiles::GPU;

impl Cuda {
    // ANCHOR: index
    /// Stages 2 to 5 on the device: the row index of the `n` bytes at `dev`.
    pub(super) fn index(
        &self,
        dev: &CudaSlice<u8>,
        n: usize,
        origin: usize,
        marks: &mut Marks,
    ) -> Result<DeviceIndex, DeviceError> {
        let s = &self.stream;
        let tiles = GPU.tiles(origin, n);
        let t = tiles as u32;
        let n64 = n as u64;
        let mut bitmaps = s
            .alloc_zeros::<u32>(tiles * GPU.slices)
            .map_err(err("alloc"))?;
        let mut counts = s.alloc_zeros::<u32>(tiles).map_err(err("alloc"))?;
        let mut functions = s.alloc_zeros::<u16>(tiles).map_err(err("alloc"))?;
        let mut speculated = s.alloc_zeros::<u8>(tiles).map_err(err("alloc"))?;
        let mut exact = s.alloc_zeros::<u8>(tiles).map_err(err("alloc"))?;
        let mut final_state = s.alloc_zeros::<u8>(1).map_err(err("alloc"))?;
        let mut first_rows = s.alloc_zeros::<u64>(tiles).map_err(err("alloc"))?;
        let mut total = s.alloc_zeros::<u64>(1).map_err(err("alloc"))?;
        let per_tile = LaunchConfig {
            grid_dim: (t, 1, 1),
            block_dim: (GPU.slices as u32, 1, 1),
            shared_mem_bytes: 0,
        };
        let one_block = LaunchConfig {
            grid_dim: (1, 1, 1),
            ..per_tile
        };
        let origin64 = origin as u64;
        marks.mark(s, "index allocation")?;
        // 2. The speculative pass.
        let mut b = s.launch_builder(&self.kernels.speculate_tiles);
        b.arg(dev).arg(&n64).arg(&origin64).arg(&t);
        b.arg(&mut bitmaps)
            .arg(&mut counts)
            .arg(&mut functions)
            .arg(&mut speculated);
        // SAFETY: the arguments match `speculate_tiles` in kernels/tiles.cu in order and
        // type; `bitmaps` holds TILE_SLICES words a tile and the rest one entry a tile.
        unsafe { b.launch(per_tile) }.map_err(err("speculate_tiles"))?;
        marks.mark(s, "speculate_tiles")?;
        // 3. The scan over the tiles' functions.
        let mut b = s.launch_builder(&self.kernels.scan_tile_states);
        b.arg(&functions)
            .arg(&t)
            .arg(&mut exact)
            .arg(&mut final_state);
        // SAFETY: as `scan_tile_states` in kernels/scan.cu; one block of 1024 threads.
        unsafe { b.launch(one_block) }.map_err(err("scan_tile_states"))?;
        marks.mark(s, "scan_tile_states")?;
        // 4. The repair pass: a block per tile, most exit at once.
        let mut b = s.launch_builder(&self.kernels.repair_tiles);
        b.arg(dev)
            .arg(&n64)
            .arg(&origin64)
            .arg(&t)
            .arg(&exact)
            .arg(&speculated);
        b.arg(&mut bitmaps).arg(&mut counts).arg(&mut functions);
        // SAFETY: as `repair_tiles` in kernels/tiles.cu, over the buffers above.
        unsafe { b.launch(per_tile) }.map_err(err("repair_tiles"))?;
        marks.mark(s, "repair_tiles")?;
        // 5. The counts' scan, the one copy that sizes the offsets, and the offsets.
        let mut b = s.launch_builder(&self.kernels.scan_tile_counts);
        b.arg(&counts).arg(&t).arg(&mut first_rows).arg(&mut total);
        // SAFETY: as `scan_tile_counts` in kernels/scan.cu; one block.
        unsafe { b.launch(one_block) }.map_err(err("scan_tile_counts"))?;
        let rows = s.clone_dtoh(&total).map_err(err("copy back"))?[0];
        let final_state = s.clone_dtoh(&final_state).map_err(err("copy back"))?[0];
        marks.mark(s, "scan_tile_counts")?;
        if rows >= 1 << 32 {
            return Err(DeviceError::TooManyRows(rows));
        }
        let mut offsets = s
            .alloc_zeros::<u64>(rows.max(1) as usize)
            .map_err(err("alloc"))?;
        let mut b = s.launch_builder(&self.kernels.bitmaps_to_offsets);
        b.arg(&bitmaps)
            .arg(&first_rows)
            .arg(&origin64)
            .arg(&t)
            .arg(&mut offsets);
        // SAFETY: as `bitmaps_to_offsets` in kernels/offsets.cu; `offsets` holds
        // `rows` entries, the bitmaps' set bits.
        unsafe { b.launch(per_tile) }.map_err(err("bitmaps_to_offsets"))?;
        marks.mark(s, "bitmaps_to_offsets")?;
        let at = |i: u64| -> Result<u64, DeviceError> {
            let i = i as usize;
            Ok(s.clone_dtoh(&offsets.slice(i..i + 1))
                .map_err(err("copy back"))?[0])
        };
        let summary = Summary {
            rows,
            final_state,
            first: if rows > 0 { at(0)? } else { 0 },
            last: if rows > 0 { at(rows - 1)? } else { 0 },
        };
        Ok(DeviceIndex {
            bitmaps,
            counts,
            functions,
            speculated,
            exact,
            first_rows,
            offsets,
            summary,
        })
    }
    // ANCHOR_END: index

    // ANCHOR: decode
    /// Stage 6 on the device: decode and aggregate the rows of `plan`, staged in
    /// shared memory or not ([`Staging`]); the table and the fallback rows, copied back.
    pub(super) fn decode(
        &self,
        dev: &CudaSlice<u8>,
        index: &DeviceIndex,
        plan: Plan,
        marks: &mut Marks,
    ) -> Result<Decoded, DeviceError> {
        let s = &self.stream;
        let n = dev.len() as u64;
        let mut keys = s.alloc_zeros::<u64>(SLOTS).map_err(err("alloc"))?;
        let mut counts = s.alloc_zeros::<u64>(SLOTS).map_err(err("alloc"))?;
        let mut values = s.alloc_zeros::<u64>(SLOTS).map_err(err("alloc"))?;
        let mut limbs = s.alloc_zeros::<u64>(SLOTS * LIMBS).map_err(err("alloc"))?;
        let data_rows = plan.end.saturating_sub(1);
        let mut fallback = s
            .alloc_zeros::<u64>(2 * data_rows.max(1) as usize)
            .map_err(err("alloc"))?;
        let mut fallback_count = s.alloc_zeros::<u32>(1).map_err(err("alloc"))?;
        marks.mark(s, "table allocation")?;
        if data_rows > 0 {
            let stage_bytes = if self.stage_rows()? { STAGE_BYTES } else { 0 };
            let c = plan.columns;
            let (begin, end, rows) = (1u64, plan.end, index.summary.rows);
            let mut b = s.launch_builder(&self.kernels.decode_aggregate);
            b.arg(dev)
                .arg(&n)
                .arg(&index.offsets)
                .arg(&rows)
                .arg(&begin)
                .arg(&end);
            b.arg(&c.key).arg(&c.value).arg(&c.width).arg(&stage_bytes);
            b.arg(&mut keys)
                .arg(&mut counts)
                .arg(&mut values)
                .arg(&mut limbs);
            b.arg(&mut fallback).arg(&mut fallback_count);
            let cfg = LaunchConfig {
                grid_dim: (data_rows.div_ceil(u64::from(ROWS_PER_BLOCK)) as u32, 1, 1),
                block_dim: (ROWS_PER_BLOCK, 1, 1),
                shared_mem_bytes: stage_bytes,
            };
            // SAFETY: as `decode_aggregate` in kernels/groupby.cu: the table has SLOTS
            // slots (LIMBS words each for the limbs), `fallback` two words a row, and
            // the dynamic shared memory is the `stage_bytes` the kernel is told.
            unsafe { b.launch(cfg) }.map_err(err("decode_aggregate"))?;
        }
        marks.mark(s, "decode_aggregate")?;
        let fallen = s.clone_dtoh(&fallback_count).map_err(err("copy back"))?[0] as usize;
        let pairs = s
            .clone_dtoh(&fallback.slice(0..2 * fallen))
            .map_err(err("copy back"))?;
        let limbs = s.clone_dtoh(&limbs).map_err(err("copy back"))?;
        let decoded = Decoded {
            table: Table {
                keys: s.clone_dtoh(&keys).map_err(err("copy back"))?,
                counts: s.clone_dtoh(&counts).map_err(err("copy back"))?,
                values: s.clone_dtoh(&values).map_err(err("copy back"))?,
                limbs: limbs
                    .chunks_exact(LIMBS)
                    .map(|l| Limbs(l.try_into().expect("LIMBS words")))
                    .collect(),
            },
            fallback: pairs.chunks_exact(2).map(|p| (p[0], p[1])).collect(),
        };
        marks.mark(s, "copy back")?;
        Ok(decoded)
    }
    // ANCHOR_END: decode
}
