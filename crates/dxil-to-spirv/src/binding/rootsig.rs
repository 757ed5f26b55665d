//! The binding model of a D3D12 root signature: [`RootSignatureBindings`].
//!
//! It follows the binding contract of `dxil_rootsig::contract` (the same definition the runtime binds), for
//! compute shaders:
//!
//! | D3D resource | where the root signature puts it | [`Placement`] |
//! |---|---|---|
//! | register in a descriptor table range | heap slot `root_word(table) + range offset + register − range base` (+ dynamic index) in the heap array of the view kind | [`Placement::Heap`] with the table word, and the offset buffer where the contract applies it |
//! | `b#` of a root constants parameter | root block words | [`Placement::PushConstants`] |
//! | root CBV/SRV/UAV read through a buffer device address | 64-bit address in the root block | [`Placement::DeviceAddress`] |
//! | root CBV/SRV/UAV bound as a descriptor (devices without buffer device addresses, push-descriptor CBVs) | its set and binding | [`Placement::Descriptor`] |
//! | static sampler | its immutable sampler | [`Placement::Descriptor`] |
//! | counter of a table UAV | the UAV counter address table, same index as the UAV | [`Placement::AddressTable`] |
//! | SM 6.6 `ResourceDescriptorHeap[i]` / `SamplerDescriptorHeap[i]` (only with the root signature's `*_HEAP_DIRECTLY_INDEXED` flags) | heap slot `i` | [`Placement::Heap`] without table word |
//! | acceleration structure SRV in a table (or from the heap) | its device address in the address table, at the heap slot | [`Placement::AddressTable`] |
//! | acceleration structure in a root SRV | 64-bit address in the root block | [`Placement::DeviceAddress`] |
//!
//! Matching follows D3D12 (and vkd3d-proton): a declared register array must lie inside one range, which for
//! arrays of more than one register must be a table range; an *unbounded* declaration that no table range holds is
//! matched again as a single register, so that it may bind a root descriptor or a static sampler (where every index
//! then reads that one descriptor, as native drivers do); a *sized* array never binds one.

use dxil_rootsig::contract::{BindingContract, HeapIndexBase, Location, OffsetUse};
use dxil_rootsig::{
    DeviceLimits, HeapView, LayoutOptions, PipelineLayout, RootBlockStorage, RootSignature,
};

use super::{
    ArraySize, BindingModel, D3dBinding, DescriptorType, OffsetEntry, OffsetKind, Placement,
    RootBlockPlacement,
};
use crate::dxil::{ResourceClass, ResourceKind};

/// The binding model of a root signature's Vulkan pipeline layout (see the module docs).
#[derive(Clone, Debug)]
pub struct RootSignatureBindings {
    layout: PipelineLayout,
    contract: BindingContract,
}

impl RootSignatureBindings {
    /// The model of `layout` (computed by [`dxil_rootsig::layout`]).
    pub fn new(layout: PipelineLayout) -> RootSignatureBindings {
        let contract = BindingContract::new(&layout);
        RootSignatureBindings { layout, contract }
    }

    /// Lays out `rs` for a device and options, then builds the model.
    pub fn from_root_signature(
        rs: &RootSignature,
        limits: &DeviceLimits,
        options: &LayoutOptions,
    ) -> Result<RootSignatureBindings, String> {
        let layout = dxil_rootsig::layout(rs, limits, options).map_err(|e| e.to_string())?;
        Ok(RootSignatureBindings::new(layout))
    }

    /// The pipeline layout the model follows.
    pub fn layout(&self) -> &PipelineLayout {
        &self.layout
    }

    /// The binding contract the model follows.
    pub fn contract(&self) -> &BindingContract {
        &self.contract
    }

    fn offsets(&self, kind: OffsetUse) -> Option<OffsetEntry> {
        let buffer = self.contract.offset_buffer?;
        let kind = match kind {
            OffsetUse::None => return None,
            OffsetUse::Bytes => OffsetKind::Bytes,
            OffsetUse::Elements => OffsetKind::Elements,
        };
        Some(OffsetEntry {
            set: buffer.set,
            binding: buffer.binding,
            kind,
        })
    }

    /// A contract location as a placement for a view read as `ty`.
    fn placement(
        &self,
        what: &dyn std::fmt::Display,
        view: HeapView,
        location: Location,
        ty: DescriptorType,
    ) -> Result<Placement, String> {
        Ok(match location {
            Location::Heap {
                array,
                base,
                offset_in_table,
            } => {
                let declared = descriptor_type(array.descriptor_type);
                let ok = declared == Some(ty)
                    || (ty == DescriptorType::UniformBuffer
                        && declared == Some(DescriptorType::StorageBuffer));
                if !ok {
                    return Err(format!(
                        "{what}: this layout stores {} views as {} descriptors, which the translator does not read them \
                         through (it reads them as {})",
                        view_name(view),
                        array.descriptor_type.d3d_name(),
                        ty.name()
                    ));
                }
                Placement::Heap {
                    set: array.set,
                    binding: array.binding,
                    table_word: match base {
                        HeapIndexBase::TableWord { offset_in_block } => Some(offset_in_block / 4),
                        HeapIndexBase::Direct => None,
                    },
                    offset: offset_in_table,
                    descriptor_type: declared.unwrap_or(ty),
                    offsets: self.offsets(array.offsets),
                }
            }
            Location::RootConstants {
                offset_in_block,
                count,
            } => Placement::PushConstants {
                first_word: offset_in_block / 4,
                words: count,
            },
            Location::RootAddress { offset_in_block } => Placement::DeviceAddress {
                offset: offset_in_block,
            },
            Location::RootDescriptor {
                set,
                binding,
                descriptor_type: d,
            } => {
                if descriptor_type(d) != Some(ty) {
                    return Err(format!(
                        "{what}: the root descriptor is a {} descriptor, but the shader reads it as a {}",
                        d.d3d_name(),
                        ty.name()
                    ));
                }
                Placement::Descriptor {
                    set,
                    binding,
                    array: ArraySize::One,
                }
            }
            Location::StaticSampler { set, binding } => Placement::Descriptor {
                set,
                binding,
                array: ArraySize::One,
            },
        })
    }

    /// Where a declared range is found, with the unbounded-declaration retry of the module docs.
    fn locate(&self, r: &D3dBinding, view: HeapView) -> Option<Location> {
        let count = (r.count != u32::MAX).then_some(r.count.max(1));
        let l = &self.layout;
        self.contract
            .locate(l, view, r.space, r.register, count)
            .or_else(|| {
                count
                    .is_none()
                    .then(|| self.contract.locate(l, view, r.space, r.register, Some(1)))
                    .flatten()
            })
    }
}

/// The view kind a resource of `class`/`kind` read as `ty` is in a D3D12 heap.
fn heap_view(class: ResourceClass, kind: ResourceKind, ty: DescriptorType) -> Option<HeapView> {
    use DescriptorType as T;
    let uav = class == ResourceClass::Uav;
    Some(match (class, ty) {
        (ResourceClass::Sampler, T::Sampler) => HeapView::Sampler,
        (ResourceClass::Cbv, T::UniformBuffer) => HeapView::Cbv,
        (ResourceClass::Srv | ResourceClass::Uav, T::StorageBuffer) if kind.is_raw_like() => {
            if uav {
                HeapView::UavRawBuffer
            } else {
                HeapView::SrvRawBuffer
            }
        }
        (ResourceClass::Srv, T::UniformTexelBuffer) => HeapView::SrvTexelBuffer,
        (ResourceClass::Uav, T::StorageTexelBuffer) => HeapView::UavTexelBuffer,
        (ResourceClass::Srv, T::SampledImage) => HeapView::SrvImage,
        (ResourceClass::Uav, T::StorageImage) => HeapView::UavImage,
        _ => return None,
    })
}

fn descriptor_type(t: dxil_rootsig::DescriptorType) -> Option<DescriptorType> {
    use dxil_rootsig::DescriptorType as V;
    Some(match t {
        V::Sampler => DescriptorType::Sampler,
        V::SampledImage => DescriptorType::SampledImage,
        V::StorageImage => DescriptorType::StorageImage,
        V::UniformTexelBuffer => DescriptorType::UniformTexelBuffer,
        V::StorageTexelBuffer => DescriptorType::StorageTexelBuffer,
        V::UniformBuffer => DescriptorType::UniformBuffer,
        V::StorageBuffer => DescriptorType::StorageBuffer,
        V::Mutable => return None,
    })
}

fn view_name(view: HeapView) -> &'static str {
    match view {
        HeapView::Sampler => "sampler",
        HeapView::Cbv => "CBV",
        HeapView::SrvImage => "texture SRV",
        HeapView::SrvTexelBuffer => "typed buffer SRV",
        HeapView::SrvRawBuffer => "raw/structured buffer SRV",
        HeapView::UavImage => "texture UAV",
        HeapView::UavTexelBuffer => "typed buffer UAV",
        HeapView::UavRawBuffer => "raw/structured buffer UAV",
    }
}

fn kind_error(r: &dyn std::fmt::Display, kind: ResourceKind, ty: DescriptorType) -> String {
    format!(
        "{r}: a {kind:?} read as a {} has no place in a D3D12 descriptor heap",
        ty.name()
    )
}

impl RootSignatureBindings {
    /// An acceleration structure: its address, in the address table at its heap slot (tables) or in the root
    /// block (root SRVs).
    fn place_accel(&self, r: &D3dBinding) -> Result<Placement, String> {
        let table = self.contract.uav_counters;
        match self.locate(r, HeapView::SrvRawBuffer) {
            Some(Location::Heap {
                base,
                offset_in_table,
                ..
            }) => {
                let table = table.ok_or_else(|| {
                    format!("{r}: acceleration structures in tables need the address table (buffer device addresses)")
                })?;
                Ok(Placement::AddressTable {
                    set: table.set,
                    binding: table.binding,
                    table_word: match base {
                        HeapIndexBase::TableWord { offset_in_block } => Some(offset_in_block / 4),
                        HeapIndexBase::Direct => None,
                    },
                    offset: offset_in_table,
                })
            }
            Some(Location::RootAddress { offset_in_block }) => Ok(Placement::DeviceAddress {
                offset: offset_in_block,
            }),
            Some(_) => Err(format!(
                "{r}: an acceleration structure in a root descriptor needs buffer device addresses"
            )),
            None => Err(format!(
                "{r}: the root signature binds no SRV there for compute and ray-tracing shaders"
            )),
        }
    }
}

impl BindingModel for RootSignatureBindings {
    fn place(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        if ty == DescriptorType::AccelerationStructure {
            return self.place_accel(r);
        }
        let view = heap_view(r.class, r.kind, ty).ok_or_else(|| kind_error(r, r.kind, ty))?;
        let location = self.locate(r, view).ok_or_else(|| {
            format!(
                "{r}: the root signature binds no {} there for compute shaders (or not as the whole declared range)",
                view_name(view)
            )
        })?;
        self.placement(r, view, location, ty)
    }

    fn counter(&self, r: &D3dBinding) -> Result<Placement, String> {
        let table = self.contract.uav_counters.ok_or_else(|| {
            format!("counter of {r}: the layout has no UAV counter address table (no buffer device addresses)")
        })?;
        match self.locate(r, HeapView::UavRawBuffer) {
            Some(Location::Heap {
                base,
                offset_in_table,
                ..
            }) => Ok(Placement::AddressTable {
                set: table.set,
                binding: table.binding,
                table_word: match base {
                    HeapIndexBase::TableWord { offset_in_block } => Some(offset_in_block / 4),
                    HeapIndexBase::Direct => None,
                },
                offset: offset_in_table,
            }),
            Some(_) => Err(format!(
                "counter of {r}: a UAV counter needs a descriptor-table UAV, not a root descriptor"
            )),
            None => Err(format!(
                "counter of {r}: the root signature binds no UAV there for compute shaders"
            )),
        }
    }

    fn heap(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        let what = "descriptor heap access";
        if ty == DescriptorType::AccelerationStructure {
            let table = self
                .contract
                .uav_counters
                .filter(|_| self.contract.resource_heap_directly_indexed);
            let table = table.ok_or(
                "acceleration structure from the descriptor heap: needs CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED and the \
                 address table (buffer device addresses)",
            )?;
            return Ok(Placement::AddressTable {
                set: table.set,
                binding: table.binding,
                table_word: None,
                offset: 0,
            });
        }
        let view = heap_view(r.class, r.kind, ty).ok_or_else(|| kind_error(&what, r.kind, ty))?;
        let location = self.contract.direct_heap(view).ok_or_else(|| {
            format!(
                "{what}: the root signature does not set {} (or the layout has no {} array)",
                if view == HeapView::Sampler {
                    "SAMPLER_HEAP_DIRECTLY_INDEXED"
                } else {
                    "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED"
                },
                view_name(view)
            )
        })?;
        self.placement(&what, view, location, ty)
    }

    fn heap_counter(&self) -> Result<Placement, String> {
        if !self.contract.resource_heap_directly_indexed {
            return Err(
                "UAV counter from the descriptor heap: the root signature does not set CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED"
                    .into(),
            );
        }
        let table = self.contract.uav_counters.ok_or(
            "UAV counter from the descriptor heap: the layout has no UAV counter address table (no buffer device \
             addresses)",
        )?;
        Ok(Placement::AddressTable {
            set: table.set,
            binding: table.binding,
            table_word: None,
            offset: 0,
        })
    }

    fn local_heap(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        let what = "local root signature table";
        if ty == DescriptorType::AccelerationStructure {
            let table = self.contract.uav_counters.ok_or(
                "local root signature table: acceleration structures need the address table (buffer device addresses)",
            )?;
            return Ok(Placement::AddressTable {
                set: table.set,
                binding: table.binding,
                table_word: None,
                offset: 0,
            });
        }
        let view = heap_view(r.class, r.kind, ty).ok_or_else(|| kind_error(&what, r.kind, ty))?;
        let array = *self
            .contract
            .heap_array(view)
            .ok_or_else(|| format!("{what}: the layout has no {} array", view_name(view)))?;
        self.placement(
            &what,
            view,
            Location::Heap {
                array,
                base: HeapIndexBase::Direct,
                offset_in_table: 0,
            },
            ty,
        )
    }

    fn local_heap_counter(&self, _: &D3dBinding) -> Result<Placement, String> {
        let table = self.contract.uav_counters.ok_or(
            "local root signature table: UAV counters need the address table (buffer device addresses)",
        )?;
        Ok(Placement::AddressTable {
            set: table.set,
            binding: table.binding,
            table_word: None,
            offset: 0,
        })
    }

    fn push_constant_bytes(&self) -> u32 {
        match self.layout.root_block.storage {
            RootBlockStorage::PushConstants => self.layout.root_block.size_in_bytes,
            RootBlockStorage::UniformBuffer(_) => 0,
        }
    }

    fn root_block(&self) -> RootBlockPlacement {
        let bytes = self.layout.root_block.size_in_bytes;
        match self.layout.root_block.storage {
            RootBlockStorage::PushConstants => RootBlockPlacement::PushConstants { bytes },
            RootBlockStorage::UniformBuffer(sb) => RootBlockPlacement::UniformBuffer {
                set: sb.set,
                binding: sb.binding,
                bytes,
            },
        }
    }
}

#[cfg(test)]
mod tests;
