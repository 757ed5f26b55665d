//! Version-2 cases as plain data: the root signature a case names, and what the runtime writes
//! for it (heap descriptors, side-buffer contents, static samplers, root blocks per pass), with
//! every rule of the case format that needs the root signature checked here. The Vulkan side
//! (`vulkan::heap`) only creates objects from this plan.

use ash::vk;
use dxil_rootsig::{
    ComparisonFunc, DescriptorType, HeapType, HeapView, ParseOptions, RootSignature, SamplerFlags,
    SetBinding, SignatureKind, StaticBorderColor, StaticSampler, TextureAddressMode, Version,
};

use crate::binding::{BindingContract, DerivedLayout, HeapArray, ParameterContract};
use crate::case::{
    AddressMode, Case, Filter, HeapLayout, RootArgument, RootSignatureSource, RootValue,
    SamplerDesc, View, ViewShape, ViewType,
};
use crate::format::Format;
use crate::report::RunError;

/// The largest DXIL container read for an `embedded` root signature.
const MAX_CONTAINER_SIZE: u64 = 64 << 20;
/// D3D12's raw view offset alignment (`D3D12_RAW_UAV_SRV_BYTE_ALIGNMENT`).
pub(crate) const RAW_VIEW_ALIGNMENT: u64 = 16;
/// D3D12's constant buffer placement alignment, which root CBV addresses also keep.
const CBV_ALIGNMENT: u64 = 256;

/// The root signature of a version-2 case: the shader container's RTS0 part, an HLSL string
/// (compiled as DXC's default `rootsig_1_1` for an entry point), or a file holding a container
/// with an RTS0 part or a bare RTS0 payload.
pub fn root_signature_of(case: &Case, heap: &HeapLayout) -> Result<RootSignature, RunError> {
    let rs_err = |what: String| RunError::RootSignature(what);
    match &heap.root_signature {
        RootSignatureSource::Embedded => {
            let path = &case.shader;
            let len = std::fs::metadata(path)
                .map_err(|e| {
                    rs_err(format!(
                        "`embedded`: cannot read the shader container {}: {e}",
                        path.display()
                    ))
                })?
                .len();
            if len > MAX_CONTAINER_SIZE {
                return Err(rs_err(format!(
                    "`embedded`: {} has {len} bytes, more than the {MAX_CONTAINER_SIZE} read for a container",
                    path.display()
                )));
            }
            let bytes = std::fs::read(path).map_err(|e| {
                rs_err(format!(
                    "`embedded`: cannot read the shader container {}: {e}",
                    path.display()
                ))
            })?;
            RootSignature::from_container(&bytes)
                .map_err(|e| rs_err(format!("`embedded` ({}): {e}", path.display())))
        }
        RootSignatureSource::Hlsl(text) => {
            let options = ParseOptions {
                version: Version::V1_1,
                kind: SignatureKind::Global,
            };
            dxil_rootsig::parse_hlsl(text, &options).map_err(|e| rs_err(e.to_string()))
        }
        RootSignatureSource::File { path, bytes } => {
            let parsed = if bytes.starts_with(b"DXBC") {
                RootSignature::from_container(bytes)
            } else {
                RootSignature::from_rts0(bytes)
            };
            parsed.map_err(|e| rs_err(format!("{}: {e}", path.display())))
        }
    }
}

/// Device properties the plan depends on (beyond the layout's [`dxil_rootsig::DeviceLimits`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PlanLimits {
    /// Storage-buffer offset alignment the descriptors must keep (the layout's, which is at
    /// least the device's).
    pub storage_alignment: u64,
    /// `minTexelBufferOffsetAlignment`.
    pub texel_alignment: u64,
    /// `minUniformBufferOffsetAlignment`.
    pub uniform_alignment: u64,
    pub max_uniform_range: u64,
    pub max_storage_range: u64,
    pub max_texel_elements: u64,
    /// `nullDescriptor` is enabled.
    pub null_descriptor: bool,
    /// `samplerAnisotropy` is enabled: the device's `maxSamplerAnisotropy`.
    pub max_anisotropy: Option<f32>,
    pub max_lod_bias: f32,
    /// `samplerFilterMinmax`.
    pub filter_minmax: bool,
    /// `samplerMirrorClampToEdge`.
    pub mirror_clamp_to_edge: bool,
}

/// Where a buffer descriptor points; `None` in a [`Descriptor`] is a null descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Index of the case memory.
    pub memory: usize,
    pub offset: u64,
    pub range: u64,
}

/// A sampler as Vulkan creates it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SamplerSpec {
    pub mag: vk::Filter,
    pub min: vk::Filter,
    pub mipmap: vk::SamplerMipmapMode,
    pub address: [vk::SamplerAddressMode; 3],
    pub mip_lod_bias: f32,
    pub anisotropy: Option<f32>,
    pub compare: Option<vk::CompareOp>,
    pub min_lod: f32,
    pub max_lod: f32,
    pub border: vk::BorderColor,
    pub unnormalized: bool,
    pub reduction: Option<vk::SamplerReductionMode>,
}

/// One descriptor to write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Descriptor {
    /// A uniform or storage buffer.
    Buffer {
        ty: DescriptorType,
        span: Option<Span>,
    },
    /// A uniform or storage texel buffer.
    Texel {
        ty: DescriptorType,
        span: Option<Span>,
        format: Format,
    },
    Sampler(SamplerSpec),
}

/// One heap descriptor: array element `element` of `(set, binding)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HeapWrite {
    pub set: u32,
    pub binding: u32,
    pub element: u32,
    pub descriptor: Descriptor,
}

/// A root descriptor passed as a descriptor, for one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RootDescriptorWrite {
    pub set: u32,
    pub binding: u32,
    pub ty: DescriptorType,
    pub span: Option<Span>,
}

/// A GPU address to patch into a root block once memories exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AddressPatch {
    pub offset_in_block: u32,
    pub memory: usize,
    pub offset: u64,
}

/// One dispatch and its root arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PassPlan {
    pub groups: [u32; 3],
    /// The root block, addresses still zero.
    pub block: Vec<u8>,
    pub addresses: Vec<AddressPatch>,
    pub root_descriptors: Vec<RootDescriptorWrite>,
}

/// A UAV counter: the address of `memory + offset` goes into table entry `slot`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CounterEntry {
    pub slot: u32,
    pub memory: usize,
    pub offset: u64,
}

/// Everything the Vulkan side creates for a version-2 case.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HeapPlan {
    pub writes: Vec<HeapWrite>,
    /// The offset buffer's binding and its words (4 per heap slot).
    pub offsets: Option<(SetBinding, Vec<u32>)>,
    /// The counter table's binding and its non-zero entries.
    pub counters: Option<(SetBinding, Vec<CounterEntry>)>,
    pub static_samplers: Vec<SamplerSpec>,
    pub passes: Vec<PassPlan>,
    /// Memories need buffer device addresses.
    pub uses_addresses: bool,
}

fn heap_err(message: String) -> RunError {
    RunError::Heap(message)
}

fn same_binding(a: &HeapArray, b: &HeapArray) -> bool {
    (a.set, a.binding) == (b.set, b.binding)
}

/// Plans a version-2 case for the derived layout.
pub(crate) fn plan_heap(
    case: &Case,
    heap: &HeapLayout,
    derived: &DerivedLayout,
    limits: &PlanLimits,
) -> Result<HeapPlan, RunError> {
    let contract = &derived.contract;
    let slots = usize::try_from(heap.heap_size).map_err(|_| heap_err("heap size".into()))?;
    let mut plan = HeapPlan {
        writes: Vec::with_capacity(heap.views.len() * 2 + heap.samplers.len()),
        offsets: contract.offset_buffer.map(|o| {
            (
                SetBinding {
                    set: o.set,
                    binding: o.binding,
                },
                vec![0; slots * 4],
            )
        }),
        counters: contract.uav_counters.map(|sb| (sb, Vec::new())),
        static_samplers: Vec::with_capacity(derived.root_signature.static_samplers.len()),
        passes: Vec::new(),
        uses_addresses: derived.layout.root_block.root_address_count > 0
            || contract.uav_counters.is_some(),
    };

    for (i, view) in heap.views.iter().enumerate() {
        plan_view(&mut plan, contract, heap, view, limits)
            .map_err(|m| heap_err(format!("view[{i}] (slot {}): {m}", view.slot)))?;
    }
    if !heap.samplers.is_empty() {
        let array = contract
            .heap_array(HeapView::Sampler)
            .ok_or_else(|| heap_err("the layout has no sampler heap".into()))?;
        for (i, s) in heap.samplers.iter().enumerate() {
            let spec =
                heap_sampler(s, limits).map_err(|m| heap_err(format!("sampler[{i}]: {m}")))?;
            plan.writes.push(HeapWrite {
                set: array.set,
                binding: array.binding,
                element: s.slot,
                descriptor: Descriptor::Sampler(spec),
            });
        }
    }
    for (i, s) in derived.root_signature.static_samplers.iter().enumerate() {
        plan.static_samplers.push(
            static_sampler(s, limits)
                .map_err(|m| RunError::RootSignature(format!("static sampler [{i}]: {m}")))?,
        );
    }

    let dispatches: Vec<([u32; 3], &[RootArgument])> = if heap.passes.is_empty() {
        let groups = case
            .dispatch
            .ok_or_else(|| heap_err("the case has neither `dispatch` nor `[[pass]]`".into()))?;
        vec![(groups, &[][..])]
    } else {
        heap.passes
            .iter()
            .map(|p| (p.groups, p.root.as_slice()))
            .collect()
    };
    for (i, (groups, overrides)) in dispatches.into_iter().enumerate() {
        let pass =
            plan_pass(contract, heap, groups, &heap.root, overrides, limits).map_err(|m| {
                heap_err(if heap.passes.is_empty() {
                    m
                } else {
                    format!("pass[{i}]: {m}")
                })
            })?;
        plan.passes.push(pass);
    }
    Ok(plan)
}

/// Bytes of the view window and its element size.
fn view_window(view: &View) -> Result<(u64, u64, u64), String> {
    let size = u64::from(view.shape.element_size());
    let start = view
        .first_element
        .checked_mul(size)
        .ok_or("the view's offset overflows")?;
    let bytes = view
        .num_elements
        .checked_mul(size)
        .ok_or("the view's size overflows")?;
    Ok((start, bytes, size))
}

fn plan_view(
    plan: &mut HeapPlan,
    contract: &BindingContract,
    heap: &HeapLayout,
    view: &View,
    limits: &PlanLimits,
) -> Result<(), String> {
    if view.ty.is_null() && !limits.null_descriptor {
        return Err("null views need the device's nullDescriptor feature".into());
    }
    let slot = view.slot;
    let is_uav = matches!(view.ty, ViewType::Uav | ViewType::NullUav);

    if matches!(view.ty, ViewType::Cbv | ViewType::NullCbv) {
        return plan_cbv(plan, contract, heap, view, limits);
    }

    let (raw_view, texel_view) = if is_uav {
        (HeapView::UavRawBuffer, HeapView::UavTexelBuffer)
    } else {
        (HeapView::SrvRawBuffer, HeapView::SrvTexelBuffer)
    };
    let ssbo = contract
        .heap_array(raw_view)
        .filter(|a| a.descriptor_type == DescriptorType::StorageBuffer)
        .copied();
    let texel = contract.heap_array(texel_view).copied();
    let typed_format = match view.shape {
        ViewShape::Typed { format } => Some(format),
        _ => None,
    };
    if matches!(view.ty, ViewType::Srv | ViewType::Uav)
        && view.shape == ViewShape::Raw
        && !view
            .first_element
            .saturating_mul(4)
            .is_multiple_of(RAW_VIEW_ALIGNMENT)
    {
        return Err(format!(
            "a raw view must start at a multiple of {RAW_VIEW_ALIGNMENT} bytes (D3D12_RAW_UAV_SRV_BYTE_ALIGNMENT); first_element {} is byte {}",
            view.first_element,
            view.first_element.saturating_mul(4)
        ));
    }
    let (start, bytes, element) = view_window(view)?;
    // Raw and structured views read as R32_UINT texel buffers count 32-bit words.
    let texel_format = typed_format.or(element.is_multiple_of(4).then_some(Format::R32Uint));
    let shared = matches!((&ssbo, &texel), (Some(s), Some(t)) if same_binding(s, t));
    let want_ssbo = ssbo.is_some() && (typed_format.is_none() || !shared);
    let want_texel = texel.is_some()
        && texel_format.is_some()
        && (typed_format.is_some() || ssbo.is_none() || !shared);
    if !want_ssbo && !want_texel {
        return Err(format!(
            "a {}-byte element cannot be read as a storage buffer on this layout, nor as 32-bit texels",
            element
        ));
    }

    let entry = usize::try_from(slot)
        .unwrap_or(usize::MAX)
        .saturating_mul(4);
    if let (Some(array), true) = (ssbo, want_ssbo) {
        let span = storage_span(plan, contract, view, limits, (start, bytes), entry)?;
        plan.writes.push(HeapWrite {
            set: array.set,
            binding: array.binding,
            element: slot,
            descriptor: Descriptor::Buffer {
                ty: DescriptorType::StorageBuffer,
                span,
            },
        });
    }
    if let (Some(array), Some(format), true) = (texel, texel_format, want_texel) {
        let span = texel_span(plan, contract, view, limits, format, (start, bytes), entry)?;
        plan.writes.push(HeapWrite {
            set: array.set,
            binding: array.binding,
            element: slot,
            descriptor: Descriptor::Texel {
                ty: array.descriptor_type,
                span,
                format,
            },
        });
    }

    if let Some(counter) = view.counter {
        let Some((_, entries)) = &mut plan.counters else {
            return Err(
                "UAV counters need the counter address table (buffer device addresses)".into(),
            );
        };
        entries.push(CounterEntry {
            slot,
            memory: counter.memory,
            offset: counter.offset,
        });
    }
    Ok(())
}

/// A CBV (or null CBV) in the heap's CBV array: the window clipped to its memory and the
/// device's range, at an offset the device's uniform-buffer alignment allows.
fn plan_cbv(
    plan: &mut HeapPlan,
    contract: &BindingContract,
    heap: &HeapLayout,
    view: &View,
    limits: &PlanLimits,
) -> Result<(), String> {
    let memory_size = |m: usize| heap.memories.get(m).map_or(0, |m| m.size);
    let slot = view.slot;
    let array = contract
        .heap_array(HeapView::Cbv)
        .ok_or("the layout has no CBV array")?;
    let span = match view.memory {
        None => None,
        Some(memory) => {
            let offset = view.first_element;
            if !offset.is_multiple_of(limits.uniform_alignment.max(1)) {
                return Err(format!(
                    "offset {offset} breaks the device's uniform-buffer alignment {}",
                    limits.uniform_alignment
                ));
            }
            let max = if array.descriptor_type == DescriptorType::StorageBuffer {
                limits.max_storage_range
            } else {
                limits.max_uniform_range
            };
            // D3D12 lets a CBV run past its memory (sizes round up to 256); Vulkan does
            // not, and the clipped bytes read as out of bounds either way.
            let range = view
                .num_elements
                .min(memory_size(memory).saturating_sub(offset))
                .min(max);
            Some(Span {
                memory,
                offset,
                range,
            })
        }
    };
    plan.writes.push(HeapWrite {
        set: array.set,
        binding: array.binding,
        element: slot,
        descriptor: Descriptor::Buffer {
            ty: array.descriptor_type,
            span,
        },
    });
    Ok(())
}

/// The span a raw, structured or typed view's storage-buffer descriptor covers: aligned down
/// to the device's alignment, the rest recorded in the offset buffer at the slot's `entry`.
/// `(start, bytes)` is the view's byte window.
fn storage_span(
    plan: &mut HeapPlan,
    contract: &BindingContract,
    view: &View,
    limits: &PlanLimits,
    (start, bytes): (u64, u64),
    entry: usize,
) -> Result<Option<Span>, String> {
    Ok(match view.memory {
        None => None,
        Some(memory) => {
            let align = limits.storage_alignment.max(1);
            let storage_offsets = contract
                .offset_buffer
                .is_some_and(|o| o.storage_buffer_offsets);
            let aligned = start - start % align;
            if aligned != start && !storage_offsets {
                return Err(format!(
                    "byte offset {start} breaks the storage-buffer alignment {align} and the layout has no offset buffer for it"
                ));
            }
            let range = start + bytes - aligned;
            if range > limits.max_storage_range {
                return Err(format!(
                    "{range} bytes exceed the device's storage-buffer range of {}",
                    limits.max_storage_range
                ));
            }
            if let Some((_, words)) = &mut plan.offsets
                && let Some(e) = words.get_mut(entry..entry.saturating_add(2))
            {
                e.copy_from_slice(&[to_u32(start - aligned)?, to_u32(bytes)?]);
            }
            Some(Span {
                memory,
                offset: aligned,
                range,
            })
        }
    })
}

/// The span a view's texel-buffer descriptor of `format` covers: aligned down to the device's
/// texel alignment and a whole element, the element offset and count recorded in the offset
/// buffer at the slot's `entry`; `(start, bytes)` is the view's byte window.
fn texel_span(
    plan: &mut HeapPlan,
    contract: &BindingContract,
    view: &View,
    limits: &PlanLimits,
    format: Format,
    (start, bytes): (u64, u64),
    entry: usize,
) -> Result<Option<Span>, String> {
    Ok(match view.memory {
        None => None,
        Some(memory) => {
            let size = u64::from(format.size());
            let base_align = limits.texel_alignment.max(1);
            let texel_offsets = contract
                .offset_buffer
                .is_some_and(|o| o.texel_buffer_offsets);
            // Aligned to a whole element as well, so that the remainder counts elements.
            let align = lcm(base_align, size);
            let aligned = start - start % align;
            if aligned != start && !texel_offsets {
                return Err(format!(
                    "byte offset {start} breaks the texel-buffer alignment {base_align} and the layout has no offset buffer for texel buffers"
                ));
            }
            let element_offset = (start - aligned) / size;
            let element_count = bytes / size;
            let total = element_offset + element_count;
            if total > limits.max_texel_elements {
                return Err(format!(
                    "{total} texels exceed the device's {} per texel buffer",
                    limits.max_texel_elements
                ));
            }
            if let Some((_, words)) = &mut plan.offsets
                && let Some(e) = words.get_mut(entry.saturating_add(2)..entry.saturating_add(4))
            {
                e.copy_from_slice(&[to_u32(element_offset)?, to_u32(element_count)?]);
            }
            Some(Span {
                memory,
                offset: aligned,
                range: total * size,
            })
        }
    })
}

fn to_u32(v: u64) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("{v} does not fit the offset buffer's 32 bits"))
}

fn gcd(a: u64, b: u64) -> u64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn lcm(a: u64, b: u64) -> u64 {
    match gcd(a, b) {
        0 => a.max(b),
        g => a / g * b,
    }
}

fn plan_pass(
    contract: &BindingContract,
    heap: &HeapLayout,
    groups: [u32; 3],
    top: &[RootArgument],
    overrides: &[RootArgument],
    limits: &PlanLimits,
) -> Result<PassPlan, String> {
    let size = usize::try_from(contract.root_block.size_in_bytes).unwrap_or(0);
    let mut pass = PassPlan {
        groups,
        block: vec![0; size],
        addresses: Vec::new(),
        root_descriptors: Vec::new(),
    };
    let count = contract.parameters.len();
    let mut set_descriptor = vec![false; count];
    // Overrides replace the top-level argument of the same index for this pass only.
    let args = top
        .iter()
        .filter(|a| !overrides.iter().any(|o| o.index == a.index))
        .chain(overrides);
    for arg in args {
        let index = usize::try_from(arg.index).unwrap_or(usize::MAX);
        let parameter = contract.parameters.get(index).ok_or_else(|| {
            format!(
                "root argument {} names no parameter (the root signature has {count})",
                arg.index
            )
        })?;
        let at = |what: &str| format!("root argument {}: {what}", arg.index);
        match (parameter, &arg.value) {
            (
                ParameterContract::Table {
                    offset_in_block,
                    heap: heap_type,
                    ..
                },
                RootValue::Table(slot),
            ) => {
                let (limit, name) = match heap_type {
                    HeapType::Sampler => (heap.sampler_heap_size, "sampler heap"),
                    HeapType::CbvSrvUav => (heap.heap_size, "CBV/SRV/UAV heap"),
                };
                if *slot >= limit {
                    return Err(at(&format!(
                        "table slot {slot} is outside the {name} of {limit} slots"
                    )));
                }
                put_words(&mut pass.block, *offset_in_block, &[*slot]);
            }
            (
                ParameterContract::Constants {
                    offset_in_block,
                    count,
                    ..
                },
                RootValue::Constants(words),
            ) => {
                if words.len() > usize::try_from(*count).unwrap_or(0) {
                    return Err(at(&format!(
                        "{} constants, but the parameter holds {count}",
                        words.len()
                    )));
                }
                put_words(&mut pass.block, *offset_in_block, words);
            }
            (
                ParameterContract::Address {
                    offset_in_block, ..
                },
                RootValue::Address { memory, offset },
            ) => {
                pass.addresses.push(AddressPatch {
                    offset_in_block: *offset_in_block,
                    memory: *memory,
                    offset: *offset,
                });
            }
            (
                ParameterContract::Descriptor {
                    set,
                    binding,
                    descriptor_type,
                    ..
                },
                RootValue::Address { memory, offset },
            ) => {
                let size = heap.memories.get(*memory).map_or(0, |m| m.size);
                let (align, max) = if *descriptor_type == DescriptorType::UniformBuffer {
                    (
                        limits.uniform_alignment.max(CBV_ALIGNMENT),
                        limits.max_uniform_range,
                    )
                } else {
                    (limits.storage_alignment, limits.max_storage_range)
                };
                if !offset.is_multiple_of(align.max(1)) {
                    return Err(at(&format!(
                        "address offset {offset} is not a multiple of {align}, which a root descriptor bound as a descriptor needs"
                    )));
                }
                if let Some(flag) = set_descriptor.get_mut(index) {
                    *flag = true;
                }
                pass.root_descriptors.push(RootDescriptorWrite {
                    set: *set,
                    binding: *binding,
                    ty: *descriptor_type,
                    span: Some(Span {
                        memory: *memory,
                        offset: *offset,
                        range: size.saturating_sub(*offset).min(max),
                    }),
                });
            }
            (p, v) => {
                return Err(at(&format!(
                    "a {} argument for a {} parameter",
                    value_kind(v),
                    parameter_kind(p)
                )));
            }
        }
    }
    // Unset root descriptors still need a descriptor; D3D12 leaves them zero, which no valid case
    // reads, so a null descriptor stands in.
    for (p, set) in contract.parameters.iter().zip(&set_descriptor) {
        if let (
            ParameterContract::Descriptor {
                set,
                binding,
                descriptor_type,
                ..
            },
            false,
        ) = (p, *set)
        {
            pass.root_descriptors.push(RootDescriptorWrite {
                set: *set,
                binding: *binding,
                ty: *descriptor_type,
                span: None,
            });
        }
    }
    pass.root_descriptors.sort_by_key(|w| w.binding);
    Ok(pass)
}

fn value_kind(v: &RootValue) -> &'static str {
    match v {
        RootValue::Table(_) => "table",
        RootValue::Address { .. } => "va",
        RootValue::Constants(_) => "constants",
    }
}

fn parameter_kind(p: &ParameterContract) -> &'static str {
    match p {
        ParameterContract::Table { .. } => "descriptor table",
        ParameterContract::Constants { .. } => "root constants",
        ParameterContract::Address { .. } | ParameterContract::Descriptor { .. } => {
            "root descriptor"
        }
    }
}

fn put_words(block: &mut [u8], offset: u32, words: &[u32]) {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    for (i, w) in words.iter().enumerate() {
        let at = start.saturating_add(i * 4);
        if let Some(dst) = block.get_mut(at..at.saturating_add(4)) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
    }
}

fn address_mode(
    mode: TextureAddressMode,
    limits: &PlanLimits,
) -> Result<vk::SamplerAddressMode, String> {
    Ok(match mode {
        TextureAddressMode::Wrap => vk::SamplerAddressMode::REPEAT,
        TextureAddressMode::Mirror => vk::SamplerAddressMode::MIRRORED_REPEAT,
        TextureAddressMode::Clamp => vk::SamplerAddressMode::CLAMP_TO_EDGE,
        TextureAddressMode::Border => vk::SamplerAddressMode::CLAMP_TO_BORDER,
        TextureAddressMode::MirrorOnce if limits.mirror_clamp_to_edge => {
            vk::SamplerAddressMode::MIRROR_CLAMP_TO_EDGE
        }
        TextureAddressMode::MirrorOnce => {
            return Err("MIRROR_ONCE needs samplerMirrorClampToEdge".into());
        }
    })
}

fn heap_sampler(s: &SamplerDesc, limits: &PlanLimits) -> Result<SamplerSpec, String> {
    let mode = match s.address {
        AddressMode::Wrap => TextureAddressMode::Wrap,
        AddressMode::Mirror => TextureAddressMode::Mirror,
        AddressMode::Clamp => TextureAddressMode::Clamp,
        AddressMode::Border => TextureAddressMode::Border,
        AddressMode::MirrorOnce => TextureAddressMode::MirrorOnce,
    };
    let mode = address_mode(mode, limits)?;
    let (filter, mip, anisotropy) = match s.filter {
        Filter::Point => (vk::Filter::NEAREST, vk::SamplerMipmapMode::NEAREST, None),
        Filter::Linear => (vk::Filter::LINEAR, vk::SamplerMipmapMode::LINEAR, None),
        // Without samplerAnisotropy, anisotropic filtering degrades to trilinear, which D3D12
        // permits an implementation to do.
        Filter::Anisotropic => (
            vk::Filter::LINEAR,
            vk::SamplerMipmapMode::LINEAR,
            limits.max_anisotropy.map(|m| m.min(16.0)),
        ),
    };
    Ok(SamplerSpec {
        mag: filter,
        min: filter,
        mipmap: mip,
        address: [mode; 3],
        mip_lod_bias: 0.0,
        anisotropy,
        compare: None,
        min_lod: 0.0,
        max_lod: vk::LOD_CLAMP_NONE,
        border: vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
        unnormalized: false,
        reduction: None,
    })
}

/// A D3D12 static sampler as a Vulkan sampler. `D3D12_FILTER` packs mip (bit 0), mag (bit 2) and
/// min (bit 4) linear bits, 0x40 for anisotropic, and the reduction in bits 7..8.
pub(crate) fn static_sampler(
    s: &StaticSampler,
    limits: &PlanLimits,
) -> Result<SamplerSpec, String> {
    let bits = s.filter.to_u32();
    let linear = |bit: u32| {
        if bits & bit != 0 {
            vk::Filter::LINEAR
        } else {
            vk::Filter::NEAREST
        }
    };
    let anisotropic = bits & 0x40 != 0;
    let reduction = (bits >> 7) & 3;
    let compare = (reduction == 1 && s.comparison_func != ComparisonFunc::None).then_some(match s
        .comparison_func
    {
        ComparisonFunc::Never | ComparisonFunc::None => vk::CompareOp::NEVER,
        ComparisonFunc::Less => vk::CompareOp::LESS,
        ComparisonFunc::Equal => vk::CompareOp::EQUAL,
        ComparisonFunc::LessEqual => vk::CompareOp::LESS_OR_EQUAL,
        ComparisonFunc::Greater => vk::CompareOp::GREATER,
        ComparisonFunc::NotEqual => vk::CompareOp::NOT_EQUAL,
        ComparisonFunc::GreaterEqual => vk::CompareOp::GREATER_OR_EQUAL,
        ComparisonFunc::Always => vk::CompareOp::ALWAYS,
    });
    let reduction = match reduction {
        2 | 3 if !limits.filter_minmax => {
            return Err("MINIMUM/MAXIMUM filters need samplerFilterMinmax".into());
        }
        2 => Some(vk::SamplerReductionMode::MIN),
        3 => Some(vk::SamplerReductionMode::MAX),
        _ => None,
    };
    let uint = s.flags.contains(SamplerFlags::UINT_BORDER_COLOR);
    let border = match (s.border_color, uint) {
        (StaticBorderColor::TransparentBlack, false) => vk::BorderColor::FLOAT_TRANSPARENT_BLACK,
        (StaticBorderColor::TransparentBlack, true) => vk::BorderColor::INT_TRANSPARENT_BLACK,
        (StaticBorderColor::OpaqueBlack, false) => vk::BorderColor::FLOAT_OPAQUE_BLACK,
        (StaticBorderColor::OpaqueWhite, false) => vk::BorderColor::FLOAT_OPAQUE_WHITE,
        (StaticBorderColor::OpaqueBlack | StaticBorderColor::OpaqueBlackUint, _) => {
            vk::BorderColor::INT_OPAQUE_BLACK
        }
        (StaticBorderColor::OpaqueWhite | StaticBorderColor::OpaqueWhiteUint, _) => {
            vk::BorderColor::INT_OPAQUE_WHITE
        }
    };
    // Floats from a blob may be NaN or out of Vulkan's ranges; clamp rather than hand the
    // driver undefined values.
    let finite = |v: f32, fallback: f32| if v.is_nan() { fallback } else { v };
    let min_lod = finite(s.min_lod, 0.0).max(0.0);
    let max_lod = finite(s.max_lod, vk::LOD_CLAMP_NONE).max(min_lod);
    let bias = finite(s.mip_lod_bias, 0.0).clamp(-limits.max_lod_bias, limits.max_lod_bias);
    let mut spec = SamplerSpec {
        mag: linear(0x4),
        min: linear(0x10),
        mipmap: if bits & 0x1 != 0 {
            vk::SamplerMipmapMode::LINEAR
        } else {
            vk::SamplerMipmapMode::NEAREST
        },
        address: [
            address_mode(s.address_u, limits)?,
            address_mode(s.address_v, limits)?,
            address_mode(s.address_w, limits)?,
        ],
        mip_lod_bias: bias,
        anisotropy: if anisotropic {
            limits
                .max_anisotropy
                .map(|m| (s.max_anisotropy.clamp(1, 16) as f32).min(m))
        } else {
            None
        },
        compare,
        min_lod,
        max_lod,
        border,
        unnormalized: false,
        reduction,
    };
    if s.flags.contains(SamplerFlags::NON_NORMALIZED_COORDINATES) {
        // Vulkan's unnormalized coordinates allow one filter for min and mag, no mips, no
        // anisotropy or comparison, and clamping address modes only.
        spec.unnormalized = true;
        spec.min = spec.mag;
        spec.mipmap = vk::SamplerMipmapMode::NEAREST;
        spec.min_lod = 0.0;
        spec.max_lod = 0.0;
        spec.anisotropy = None;
        spec.compare = None;
        for a in &mut spec.address {
            if *a != vk::SamplerAddressMode::CLAMP_TO_BORDER {
                *a = vk::SamplerAddressMode::CLAMP_TO_EDGE;
            }
        }
    }
    Ok(spec)
}

#[cfg(test)]
mod tests;
