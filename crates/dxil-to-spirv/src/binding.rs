//! Binding models: how a D3D resource (a register range, or a descriptor-heap slot) becomes a Vulkan descriptor.
//!
//! The lowering never decides a set or binding itself. For every resource range it uses, it asks the
//! [`BindingModel`] for a [`Placement`] given the Vulkan descriptor type its lowering needs; the resource-access
//! code then turns `(placement, register index)` into a descriptor, a pointer or push-constant words. A root
//! signature model (descriptor tables in bindless heap arrays indexed by push-constant offsets, root constants,
//! root descriptors through device addresses) plugs in by implementing the trait; [`RegisterBindings`] is the
//! default model used without a root signature, [`RootSignatureBindings`] the model of a D3D12 root signature.
//!
//! # The default model ([`RegisterBindings`])
//!
//! | D3D resource | Vulkan | set | binding |
//! |---|---|---|---|
//! | `b#` (cbuffer) | uniform buffer | space | `0 + register` |
//! | `t#` | storage buffer (raw/structured), uniform texel buffer (typed buffer), sampled image, acceleration structure | space | `100 + register` |
//! | `u#` | storage buffer, storage texel buffer, storage image | space | `200 + register` |
//! | `s#` | sampler | space | `300 + register` |
//! | counter of `u#` | storage buffer holding one `u32` | space | `400 + register` |
//!
//! A range of more than one register is one binding holding a descriptor array (unbounded ranges: a runtime
//! array), indexed by `register − lower bound`. These are the register shifts of DXC's SPIR-V back end with
//! `-fvk-{b,t,u,s}-shift {0,100,200,300} all`.
//!
//! [`ResolverBindings`] is the model of a caller's [`BindingResolver`]: a runtime that answers, per resource, where
//! it put the descriptor (the contract of a D3D12-on-Vulkan layer with its shader compiler).
//!
//! SM 6.6 `ResourceDescriptorHeap[i]` / `SamplerDescriptorHeap[i]` use [`HeapLayout`]: one runtime descriptor
//! array per Vulkan descriptor type in one set, all indexed by the heap index itself, so a runtime writes a D3D
//! descriptor for heap slot `i` into element `i` of the array of its type.

use std::fmt;

use crate::dxil::{ResourceClass, ResourceKind};

mod local;
mod resolver;
mod rootsig;

pub(crate) use local::LocalLocation;
pub use local::{LocalParameter, LocalRange, LocalRootSignature, LocalRootSignatureError};
pub use resolver::{
    BindingResolver, CbvMap, DescriptorKind, HeapConventions, Location, OFFSET_LAYOUT,
    OffsetBuffer, RangeInfo, Registers, ResolverBindings, ResourceQuery, RootBlock, SrvMap, UavMap,
    VkBinding,
};
pub use rootsig::RootSignatureBindings;

/// The Vulkan descriptor type a lowering needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorType {
    UniformBuffer,
    StorageBuffer,
    UniformTexelBuffer,
    StorageTexelBuffer,
    SampledImage,
    StorageImage,
    Sampler,
    AccelerationStructure,
}

impl DescriptorType {
    pub const ALL: [DescriptorType; 8] = [
        DescriptorType::UniformBuffer,
        DescriptorType::StorageBuffer,
        DescriptorType::UniformTexelBuffer,
        DescriptorType::StorageTexelBuffer,
        DescriptorType::SampledImage,
        DescriptorType::StorageImage,
        DescriptorType::Sampler,
        DescriptorType::AccelerationStructure,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DescriptorType::UniformBuffer => "uniform buffer",
            DescriptorType::StorageBuffer => "storage buffer",
            DescriptorType::UniformTexelBuffer => "uniform texel buffer",
            DescriptorType::StorageTexelBuffer => "storage texel buffer",
            DescriptorType::SampledImage => "sampled image",
            DescriptorType::StorageImage => "storage image",
            DescriptorType::Sampler => "sampler",
            DescriptorType::AccelerationStructure => "acceleration structure",
        }
    }
}

/// A resource range as the shader declares it (a `dx.resources` record).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct D3dBinding {
    pub class: ResourceClass,
    pub kind: ResourceKind,
    pub space: u32,
    /// First register of the range.
    pub register: u32,
    /// Registers in the range; `u32::MAX` when unbounded.
    pub count: u32,
    /// The range id of `dx.resources`.
    pub range_id: u32,
}

impl fmt::Display for D3dBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.class.letter(), self.register)?;
        if self.space != 0 {
            write!(f, ", space{}", self.space)?;
        }
        match self.count {
            1 => Ok(()),
            u32::MAX => write!(f, " (unbounded)"),
            n => write!(f, " ({n} registers)"),
        }
    }
}

/// How many descriptors a binding holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArraySize {
    One,
    Fixed(u32),
    Runtime,
}

/// The binding model's answer for one resource range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// A descriptor (array) at (set, binding). Register `r` of the range is element `r − lower bound`.
    Descriptor {
        set: u32,
        binding: u32,
        array: ArraySize,
    },
    /// An element of a bindless heap array at (set, binding): element =
    /// `root_word[table_word] (if any) + offset + (register − lower bound)` (+ the dynamic index), or the shader's
    /// own heap index for SM 6.6 heap access (`table_word` `None`, `offset` 0).
    Heap {
        set: u32,
        binding: u32,
        table_word: Option<u32>,
        offset: u32,
        /// The descriptor type to declare. It differs from the one asked for only where the model stores a view
        /// kind as another type: CBVs as storage buffers (devices without uniform-buffer heaps).
        descriptor_type: DescriptorType,
        /// The view's window comes from the offset buffer (see [`OffsetEntry`]).
        offsets: Option<OffsetEntry>,
    },
    /// Root constants (CBVs only): the buffer's 32-bit words are root block words `first_word..` (see
    /// [`BindingModel::root_block`]).
    PushConstants { first_word: u32, words: u32 },
    /// A root descriptor: a 64-bit buffer device address stored at root block byte `offset` (8-byte aligned).
    /// The shader reads the buffer through a `PhysicalStorageBuffer` pointer, without bounds checks (D3D12 checks
    /// none on root descriptors).
    DeviceAddress { offset: u32 },
    /// A table of 64-bit buffer device addresses (`struct { uvec2 va[]; }`, a storage buffer at (set, binding)),
    /// indexed like [`Placement::Heap`]: UAV counters, where `va[i]` is the counter of the UAV at heap slot `i`
    /// (0: no counter, and the counter operation returns 0).
    AddressTable {
        set: u32,
        binding: u32,
        table_word: Option<u32>,
        offset: u32,
    },
}

/// Where a heap view's window lies inside its descriptor: a storage buffer `struct { uvec2 e[]; }` at
/// (set, binding) holding, for heap slot `i`, `e[2i] = (byte offset, byte count)` of a storage-buffer view and
/// `e[2i + 1] = (element offset, element count)` of a texel-buffer view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetEntry {
    pub set: u32,
    pub binding: u32,
    /// Which entry of the pair the view applies.
    pub kind: OffsetKind,
}

/// The entry of the offset buffer a view applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetKind {
    /// `e[2i]`: bytes, for storage-buffer views.
    Bytes,
    /// `e[2i + 1]`: elements, for texel-buffer views.
    Elements,
}

/// Where the root block (root constants, descriptor table starts, root descriptor addresses) lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootBlockPlacement {
    /// Push constants from offset 0.
    PushConstants { bytes: u32 },
    /// A uniform buffer at (set, binding) (declared `uvec4 words[⌈bytes / 16⌉]`; word `w` at `[w / 4][w % 4]`).
    UniformBuffer { set: u32, binding: u32, bytes: u32 },
}

/// Maps resources to Vulkan bindings. Implementations must be deterministic: the lowering may ask more than once.
pub trait BindingModel: fmt::Debug + Send + Sync {
    /// Placement of a declared range, given the descriptor type the lowering uses for it.
    fn place(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String>;

    /// Placement of the counter of a UAV range (a storage buffer of one `u32` per UAV, or an address table).
    fn counter(&self, r: &D3dBinding) -> Result<Placement, String>;

    /// Placement of the SM 6.6 descriptor heap array for `ty` (samplers: the sampler heap), for a view of `r`'s
    /// class and kind (its registers mean nothing). The element is the shader's heap index, so the answer must be a
    /// runtime array.
    fn heap(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String>;

    /// Placement of the counters of UAVs taken from the descriptor heap.
    fn heap_counter(&self) -> Result<Placement, String>;

    /// Placement of the heap array that a local root signature's descriptor table indexes (see
    /// [`LocalRootSignature`]), for a view of `r`'s class and kind read as `ty`: the arrays of
    /// [`BindingModel::heap`], which a model must give here whether or not the global root signature lets shaders
    /// index the heap themselves.
    fn local_heap(&self, r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        self.heap(r, ty)
    }

    /// Placement of the counters of UAVs in a local root signature's descriptor table (as
    /// [`BindingModel::local_heap`]), for the UAV `r`.
    fn local_heap_counter(&self, _r: &D3dBinding) -> Result<Placement, String> {
        self.heap_counter()
    }

    /// Size of the push-constant block in bytes (0 when the model uses none).
    fn push_constant_bytes(&self) -> u32 {
        0
    }

    /// Where root block words ([`Placement::PushConstants`], table words, root descriptor addresses) are read.
    fn root_block(&self) -> RootBlockPlacement {
        RootBlockPlacement::PushConstants {
            bytes: self.push_constant_bytes(),
        }
    }
}

/// Layout of the descriptor heaps for `createHandleFromHeap` in the default model: set `set`, one runtime
/// array per descriptor type at `first_binding + DescriptorType index` (uniform buffer 0, storage buffer 1,
/// uniform texel buffer 2, storage texel buffer 3, sampled image 4, storage image 5, sampler 6, acceleration
/// structure 7), and the UAV counters at `first_binding + 8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapLayout {
    pub set: u32,
    pub first_binding: u32,
}

impl Default for HeapLayout {
    /// Set 0, bindings 1000..=1008 (above every register binding of the default model).
    fn default() -> Self {
        HeapLayout {
            set: 0,
            first_binding: 1000,
        }
    }
}

impl HeapLayout {
    pub fn binding(&self, ty: DescriptorType) -> u32 {
        let i = DescriptorType::ALL
            .iter()
            .position(|&t| t == ty)
            .unwrap_or(0) as u32;
        self.first_binding.saturating_add(i)
    }

    pub fn counter_binding(&self) -> u32 {
        self.first_binding.saturating_add(8)
    }
}

/// The default binding model: set = space, binding = class shift + register (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterBindings {
    /// Binding offsets of `b`, `t`, `u` and `s` registers.
    pub shifts: [u32; 4],
    /// Binding offset of UAV counters.
    pub counter_shift: u32,
    pub heap: HeapLayout,
}

impl Default for RegisterBindings {
    /// Shifts b 0, t 100, u 200, s 300; counters 400; [`HeapLayout::default`].
    fn default() -> Self {
        RegisterBindings {
            shifts: [0, 100, 200, 300],
            counter_shift: 400,
            heap: HeapLayout::default(),
        }
    }
}

impl RegisterBindings {
    fn shift(&self, class: ResourceClass) -> u32 {
        match class {
            ResourceClass::Cbv => self.shifts[0],
            ResourceClass::Srv => self.shifts[1],
            ResourceClass::Uav => self.shifts[2],
            ResourceClass::Sampler => self.shifts[3],
        }
    }
}

pub(crate) fn array_size(count: u32) -> ArraySize {
    match count {
        0 | 1 => ArraySize::One,
        u32::MAX => ArraySize::Runtime,
        n => ArraySize::Fixed(n),
    }
}

impl BindingModel for RegisterBindings {
    fn place(&self, r: &D3dBinding, _ty: DescriptorType) -> Result<Placement, String> {
        let binding = self
            .shift(r.class)
            .checked_add(r.register)
            .ok_or_else(|| format!("{r}: binding number overflows"))?;
        Ok(Placement::Descriptor {
            set: r.space,
            binding,
            array: array_size(r.count),
        })
    }

    fn counter(&self, r: &D3dBinding) -> Result<Placement, String> {
        let binding = self
            .counter_shift
            .checked_add(r.register)
            .ok_or_else(|| format!("counter of {r}: binding number overflows"))?;
        Ok(Placement::Descriptor {
            set: r.space,
            binding,
            array: array_size(r.count),
        })
    }

    fn heap(&self, _r: &D3dBinding, ty: DescriptorType) -> Result<Placement, String> {
        Ok(Placement::Descriptor {
            set: self.heap.set,
            binding: self.heap.binding(ty),
            array: ArraySize::Runtime,
        })
    }

    fn heap_counter(&self) -> Result<Placement, String> {
        Ok(Placement::Descriptor {
            set: self.heap.set,
            binding: self.heap.counter_binding(),
            array: ArraySize::Runtime,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(class: ResourceClass, register: u32, count: u32) -> D3dBinding {
        D3dBinding {
            class,
            kind: ResourceKind::RawBuffer,
            space: 2,
            register,
            count,
            range_id: 0,
        }
    }

    #[test]
    fn default_model_uses_register_shifts() {
        let m = RegisterBindings::default();
        let p = m
            .place(&b(ResourceClass::Uav, 3, 1), DescriptorType::StorageBuffer)
            .unwrap();
        assert_eq!(
            p,
            Placement::Descriptor {
                set: 2,
                binding: 203,
                array: ArraySize::One
            }
        );
        let p = m
            .place(
                &b(ResourceClass::Srv, 4, u32::MAX),
                DescriptorType::SampledImage,
            )
            .unwrap();
        assert_eq!(
            p,
            Placement::Descriptor {
                set: 2,
                binding: 104,
                array: ArraySize::Runtime
            }
        );
        let c = m.counter(&b(ResourceClass::Uav, 1, 4)).unwrap();
        assert_eq!(
            c,
            Placement::Descriptor {
                set: 2,
                binding: 401,
                array: ArraySize::Fixed(4)
            }
        );
        assert!(
            m.place(
                &b(ResourceClass::Sampler, u32::MAX - 10, 1),
                DescriptorType::Sampler
            )
            .is_err()
        );
    }

    #[test]
    fn heap_arrays_have_one_binding_per_type() {
        let m = RegisterBindings::default();
        let mut seen = Vec::new();
        for ty in DescriptorType::ALL {
            let r = b(ResourceClass::Srv, 0, u32::MAX);
            let Placement::Descriptor { binding, array, .. } = m.heap(&r, ty).unwrap() else {
                panic!("heap placement");
            };
            assert_eq!(array, ArraySize::Runtime);
            assert!(!seen.contains(&binding));
            seen.push(binding);
        }
        assert_eq!(m.heap.counter_binding(), 1008);
    }
}
