//! The binding contract of version-2 cases and the `--explain` account of a derived layout.
//!
//! The contract itself (what a translated compute shader must declare to find every descriptor,
//! root argument and side buffer the runtime binds) is defined in [`dxil_rootsig::contract`],
//! next to the layout it is derived from, so that the runtime and the translator
//! (`dxil-to-spirv`'s root-signature binding model) share one definition; it is re-exported
//! here unchanged. Read that module's documentation for the contract: heap arrays, heap
//! indices, what the runtime writes per view, the offset buffer, UAV counters, the root block
//! and static samplers. [`DerivedLayout`] bundles a root signature with its layout and contract
//! as the runtime derives them for a case on a device.

use std::fmt::Write as _;

pub use dxil_rootsig::contract::*;
use dxil_rootsig::{
    DescriptorSetLayout, DescriptorSetLayoutBinding, DescriptorType, DeviceLimits, HeapType,
    HeapView, LayoutOptions, ParameterLayout, PipelineLayout, RangeType, RegisterClass,
    RootBlockStorage, RootParameter, RootParameterKind, RootSignature, SetBinding, SetPurpose,
    ShaderVisibility, UNBOUNDED,
};
use serde::Serialize;

/// A root signature with its Vulkan layout and binding contract, as the runtime derives them for
/// a case on a device.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DerivedLayout {
    /// The root signature.
    pub root_signature: RootSignature,
    /// The device limits the layout was computed for.
    pub limits: DeviceLimits,
    /// The layout options used.
    pub options: LayoutOptions,
    /// The Vulkan pipeline layout.
    pub layout: PipelineLayout,
    /// What a shader must declare to match it.
    pub contract: BindingContract,
}

impl DerivedLayout {
    /// Validates `root_signature` and computes its layout and contract.
    pub fn new(
        root_signature: RootSignature,
        limits: DeviceLimits,
        options: LayoutOptions,
    ) -> Result<DerivedLayout, String> {
        dxil_rootsig::validate(&root_signature, &dxil_rootsig::ValidationOptions::default())
            .map_err(|e| format!("invalid root signature:\n{e}"))?;
        let layout =
            dxil_rootsig::layout(&root_signature, &limits, &options).map_err(|e| e.to_string())?;
        let contract = BindingContract::new(&layout);
        Ok(DerivedLayout {
            root_signature,
            limits,
            options,
            layout,
            contract,
        })
    }

    /// The layout as JSON (root signature, device limits, options, layout, contract).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// A human-readable account of the layout (`dxil run --explain`).
    pub fn explain(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = self.write_explanation(&mut out);
        out
    }

    fn write_explanation(&self, out: &mut String) -> std::fmt::Result {
        self.write_header(out)?;
        self.write_sets(out)?;
        self.write_root_block(out)?;
        self.write_heap_views(out)
    }

    /// The root signature in one line and the device limits the layout was computed for.
    fn write_header(&self, out: &mut String) -> std::fmt::Result {
        let rs = &self.root_signature;
        let flags = rs.flags.names();
        writeln!(
            out,
            "root signature {}: {} parameter(s), {} static sampler(s), flags {}",
            rs.version.short_name(),
            rs.parameters.len(),
            rs.static_samplers.len(),
            if flags.is_empty() {
                "NONE".to_string()
            } else {
                flags.join(" | ")
            }
        )?;
        let d = &self.limits;
        writeln!(
            out,
            "device: {} B push constants, storage-buffer alignment {}, {} sets, {} push descriptors, mutable descriptors {}, buffer device address {}, uniform-buffer heap {}",
            d.max_push_constants_size,
            d.min_storage_buffer_offset_alignment,
            d.max_bound_descriptor_sets,
            d.max_push_descriptors,
            yes_no(d.mutable_descriptors),
            yes_no(d.buffer_device_address),
            yes_no(d.uniform_buffer_heap),
        )?;
        Ok(())
    }

    /// Every descriptor set layout: its purpose, then each binding with its role and flags.
    fn write_sets(&self, out: &mut String) -> std::fmt::Result {
        let l = &self.layout;
        writeln!(out, "\ndescriptor sets ({}):", l.set_layouts.len())?;
        for set in &l.set_layouts {
            let purpose = match set.purpose {
                SetPurpose::Heap => {
                    match l
                        .heap
                        .sets
                        .iter()
                        .find(|h| h.set == set.set)
                        .map(|h| h.heap)
                    {
                        Some(HeapType::Sampler) => "sampler heap",
                        _ => "CBV/SRV/UAV heap",
                    }
                }
                SetPurpose::StaticSamplers => "static samplers",
                SetPurpose::RootDescriptors => "root descriptors",
            };
            let mut notes = Vec::new();
            if set.push_descriptor {
                notes.push("push descriptors");
            }
            if set.update_after_bind_pool {
                notes.push("update-after-bind pool");
            }
            writeln!(
                out,
                "  set {}: {purpose}{}",
                set.set,
                if notes.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", notes.join(", "))
                }
            )?;
            for b in &set.bindings {
                let ty = if b.descriptor_type == DescriptorType::Mutable {
                    let types: Vec<&str> = b.mutable_types.iter().map(|t| short_type(*t)).collect();
                    format!("MUTABLE{{{}}}", types.join(", "))
                } else {
                    short_type(b.descriptor_type).to_string()
                };
                let what = self.binding_role(set, b);
                let mut flags = Vec::new();
                if b.flags.update_after_bind {
                    flags.push("update-after-bind");
                }
                if b.flags.partially_bound {
                    flags.push("partially-bound");
                }
                if b.flags.variable_descriptor_count {
                    flags.push("variable-count");
                }
                if b.flags.update_unused_while_pending {
                    flags.push("update-unused-while-pending");
                }
                writeln!(
                    out,
                    "    binding {}: {ty}[{}]{what}{}",
                    b.binding,
                    b.descriptor_count,
                    if flags.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}]", flags.join(", "))
                    }
                )?;
            }
        }
        Ok(())
    }

    /// What a binding holds beyond its type (UAV counters, offset buffer, static sampler,
    /// spilled root block, root descriptor), with a leading space; empty for heap arrays.
    fn binding_role(&self, set: &DescriptorSetLayout, b: &DescriptorSetLayoutBinding) -> String {
        let rs = &self.root_signature;
        let l = &self.layout;
        let mut what = String::new();
        if l.heap.uav_counters == Some(SetBinding {
            set: set.set,
            binding: b.binding,
        }) {
            what = " UAV counter addresses (uvec2 per heap slot)".into();
        } else if l.heap.offset_buffer
            == Some(SetBinding {
                set: set.set,
                binding: b.binding,
            })
        {
            what = " offset buffer (2 x uvec2 per heap slot)".into();
        } else if let Some(i) = b.immutable_sampler {
            what = format!(" immutable: static sampler [{i}]");
            if let Some(s) = usize::try_from(i).ok().and_then(|i| rs.static_samplers.get(i))
            {
                what.push_str(&format!(
                    " s{} space{} {}",
                    s.shader_register,
                    s.register_space,
                    s.filter.d3d_name()
                ));
            }
        } else if let RootBlockStorage::UniformBuffer(sb) = l.root_block.storage
            && sb.set == set.set
            && sb.binding == b.binding
        {
            what = " spilled root block".into();
        } else if let Some(p) = l.parameters.iter().position(|p| {
            matches!(p, ParameterLayout::RootDescriptor { set: s, binding: bb, .. } if *s == set.set && *bb == b.binding)
        }) {
            what = format!(" root parameter [{p}]");
        }
        what
    }

    /// The root block: where it lives and what each root parameter occupies in it.
    fn write_root_block(&self, out: &mut String) -> std::fmt::Result {
        let rs = &self.root_signature;
        let c = &self.contract;
        let block = &c.root_block;
        let location = match block.location {
            RootBlockLocation::Empty => "nothing visible to compute".to_string(),
            RootBlockLocation::PushConstants { stages } => {
                format!("push constants ({})", stages.names().join(" | "))
            }
            RootBlockLocation::UniformBuffer { set, binding } => {
                format!("uniform buffer at set {set}, binding {binding} (spilled)")
            }
        };
        writeln!(
            out,
            "\nroot block: {} bytes, {location}",
            block.size_in_bytes
        )?;
        for (i, (p, pc)) in rs.parameters.iter().zip(&c.parameters).enumerate() {
            self.write_parameter(out, i, p, pc)?;
        }
        Ok(())
    }

    /// One root parameter: its part of the root block, or where its descriptor is bound.
    fn write_parameter(
        &self,
        out: &mut String,
        i: usize,
        p: &RootParameter,
        pc: &ParameterContract,
    ) -> std::fmt::Result {
        let vis = if p.shader_visibility == ShaderVisibility::All {
            String::new()
        } else {
            format!(
                " (visibility {}, not compute)",
                p.shader_visibility.d3d_name()
            )
        };
        match (&p.kind, pc) {
            (
                RootParameterKind::DescriptorTable(_),
                ParameterContract::Table {
                    offset_in_block,
                    heap,
                    ranges,
                    ..
                },
            ) => {
                writeln!(
                    out,
                    "  [{i}] table: slot word at byte {offset_in_block} ({} heap){vis}",
                    match heap {
                        HeapType::Sampler => "sampler",
                        HeapType::CbvSrvUav => "CBV/SRV/UAV",
                    }
                )?;
                for r in ranges {
                    let count = if r.num_descriptors == UNBOUNDED {
                        "unbounded".to_string()
                    } else {
                        format!("x{}", r.num_descriptors)
                    };
                    writeln!(
                        out,
                        "      {}{} space{} {count} at table offset {}",
                        r.range_type.register_letter(),
                        r.base_shader_register,
                        r.register_space,
                        r.offset_in_table
                    )?;
                }
            }
            (
                RootParameterKind::Constants(k),
                ParameterContract::Constants {
                    offset_in_block,
                    count,
                    ..
                },
            ) => writeln!(
                out,
                "  [{i}] root constants b{} space{}: {count} word(s) at bytes {offset_in_block}..{}{vis}",
                k.shader_register,
                k.register_space,
                offset_in_block + 4 * count
            )?,
            (
                kind,
                ParameterContract::Address {
                    offset_in_block, ..
                },
            ) => {
                if let Some((class, d)) = kind.root_descriptor() {
                    writeln!(
                        out,
                        "  [{i}] root {} {}{} space{}: 64-bit address at bytes {offset_in_block}..{}{vis}",
                        class_name(class),
                        class.register_letter(),
                        d.shader_register,
                        d.register_space,
                        offset_in_block + 8
                    )?;
                }
            }
            (
                kind,
                ParameterContract::Descriptor {
                    set,
                    binding,
                    descriptor_type,
                    ..
                },
            ) => {
                if let Some((class, d)) = kind.root_descriptor() {
                    writeln!(
                        out,
                        "  [{i}] root {} {}{} space{}: {} at set {set}, binding {binding}{vis}",
                        class_name(class),
                        class.register_letter(),
                        d.shader_register,
                        d.register_space,
                        short_type(*descriptor_type)
                    )?;
                }
            }
            _ => writeln!(out, "  [{i}] (layout does not match the parameter)")?,
        }
        Ok(())
    }

    /// The heap arrays a shader indexes with heap slots, and the UAV counter buffer.
    fn write_heap_views(&self, out: &mut String) -> std::fmt::Result {
        let c = &self.contract;
        writeln!(out, "\nheap views (element i = heap slot i):")?;
        for a in &c.heap_arrays {
            writeln!(
                out,
                "  {:<16} set {} binding {}: {}{}",
                view_name(a.view),
                a.set,
                a.binding,
                short_type(a.descriptor_type),
                match a.offsets {
                    OffsetUse::None => "",
                    OffsetUse::Bytes => ", offset buffer e[2i] (bytes)",
                    OffsetUse::Elements => ", offset buffer e[2i+1] (elements)",
                }
            )?;
        }
        if let Some(sb) = c.uav_counters {
            writeln!(
                out,
                "  UAV counters     set {} binding {}: uvec2 address per heap slot, 0 = none",
                sb.set, sb.binding
            )?;
        }
        if !c.resource_heap_directly_indexed && !c.sampler_heap_directly_indexed {
            writeln!(out, "  (no direct heap indexing)")?;
        }
        Ok(())
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn class_name(class: RegisterClass) -> &'static str {
    match class {
        RangeType::Cbv => "CBV",
        RangeType::Srv => "SRV",
        RangeType::Uav => "UAV",
        RangeType::Sampler => "sampler",
    }
}

/// A short name for the view kind.
pub fn view_name(view: HeapView) -> &'static str {
    match view {
        HeapView::Sampler => "sampler",
        HeapView::Cbv => "CBV",
        HeapView::SrvImage => "SRV texture",
        HeapView::SrvTexelBuffer => "SRV typed buffer",
        HeapView::SrvRawBuffer => "SRV raw/struct",
        HeapView::UavImage => "UAV texture",
        HeapView::UavTexelBuffer => "UAV typed buffer",
        HeapView::UavRawBuffer => "UAV raw/struct",
    }
}

fn short_type(t: DescriptorType) -> &'static str {
    t.d3d_name()
        .strip_prefix("VK_DESCRIPTOR_TYPE_")
        .unwrap_or(t.d3d_name())
}

#[cfg(test)]
mod tests;
