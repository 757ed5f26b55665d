//! A small SPIR-V writer for the binding-model tests: it declares whatever a
//! [`BindingContract`] says a shader must declare (root block, heap arrays, side buffers, root
//! descriptors, static samplers) and offers the accesses a translated shader makes, so that one
//! test shader runs under every layout variant the runtime can derive.

use std::collections::HashMap;
use std::io::Write as _;

use dxil_rootsig::{DescriptorType, HeapView};
use dxil_runtime::binding::{
    BindingContract, HeapArray, OffsetUse, ParameterContract, RootBlockLocation,
};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Operand};
use spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, Dim, ExecutionMode, ExecutionModel,
    FunctionControl, ImageFormat, MemoryAccess, MemoryModel, SelectionControl, StorageClass, Word,
};

/// Threads per group of every kit shader.
pub(crate) const LOCAL_SIZE: u32 = 64;
/// An element index past any descriptor's range (in 32-bit words).
const OUT_OF_BOUNDS: u32 = 0x3FFF_FFFF;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Var {
    Ssbo(u32, u32),
    Ubo(u32, u32),
    Texel(u32, u32, bool),
    Sampler(u32, u32, bool),
    Table(u32, u32),
    RootSsbo(u32, u32),
    RootUbo(u32, u32),
}

pub(crate) struct Kit<'c> {
    pub(crate) b: Builder,
    contract: &'c BindingContract,
    pub(crate) uint: Word,
    uvec2: Word,
    uvec4: Word,
    boolean: Word,
    gid: Word,
    interface: Vec<Word>,
    vars: HashMap<Var, Word>,
    types: HashMap<&'static str, Word>,
    root: Option<(Word, bool)>,
    addresses: bool,
}

impl<'c> Kit<'c> {
    pub(crate) fn new(contract: &'c BindingContract) -> Kit<'c> {
        let mut b = Builder::new();
        b.set_version(1, 5);
        for cap in [
            Capability::Shader,
            Capability::RuntimeDescriptorArray,
            Capability::StorageBufferArrayDynamicIndexing,
            Capability::UniformBufferArrayDynamicIndexing,
            Capability::UniformTexelBufferArrayDynamicIndexing,
            Capability::StorageTexelBufferArrayDynamicIndexing,
            Capability::SampledBuffer,
            Capability::ImageBuffer,
        ] {
            b.capability(cap);
        }
        let uint = b.type_int(32, 0);
        let uvec2 = b.type_vector(uint, 2);
        let uvec3 = b.type_vector(uint, 3);
        let uvec4 = b.type_vector(uint, 4);
        let boolean = b.type_bool();
        let in_ptr = b.type_pointer(None, StorageClass::Input, uvec3);
        let gid_var = b.variable(in_ptr, None, StorageClass::Input, None);
        b.decorate(
            gid_var,
            Decoration::BuiltIn,
            [Operand::BuiltIn(BuiltIn::GlobalInvocationId)],
        );
        let void = b.type_void();
        let fn_ty = b.type_function(void, []);
        b.begin_function(void, None, FunctionControl::NONE, fn_ty)
            .unwrap();
        b.begin_block(None).unwrap();
        let g = b.load(uvec3, None, gid_var, None, []).unwrap();
        let gid = b.composite_extract(uint, None, g, [0]).unwrap();
        Kit {
            b,
            contract,
            uint,
            uvec2,
            uvec4,
            boolean,
            gid,
            interface: vec![gid_var],
            vars: HashMap::new(),
            types: HashMap::new(),
            root: None,
            addresses: false,
        }
    }

    pub(crate) fn gid(&self) -> Word {
        self.gid
    }

    pub(crate) fn c(&mut self, v: u32) -> Word {
        self.b.constant_bit32(self.uint, v)
    }

    pub(crate) fn add(&mut self, a: Word, b: Word) -> Word {
        self.b.i_add(self.uint, None, a, b).unwrap()
    }

    pub(crate) fn add_c(&mut self, a: Word, v: u32) -> Word {
        let c = self.c(v);
        self.add(a, c)
    }

    pub(crate) fn mul_c(&mut self, a: Word, v: u32) -> Word {
        let c = self.c(v);
        self.b.i_mul(self.uint, None, a, c).unwrap()
    }

    /// A module-scope variable (the builder would put it into the current block).
    fn global(&mut self, ptr: Word, class: StorageClass) -> Word {
        let id = self.b.id();
        let inst = rspirv::dr::Instruction::new(
            spirv::Op::Variable,
            Some(ptr),
            Some(id),
            vec![Operand::StorageClass(class)],
        );
        self.b.module_mut().types_global_values.push(inst);
        id
    }

    fn decorate_binding(&mut self, var: Word, set: u32, binding: u32) {
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
        self.interface.push(var);
    }

    /// `struct { T data[]; }` with Block, Offset 0 and the array's stride, made once per name.
    fn block_of_runtime_array(&mut self, name: &'static str, elem: Word, stride: u32) -> Word {
        if let Some(&t) = self.types.get(name) {
            return t;
        }
        let arr_id = self.b.id();
        let arr = self.b.type_runtime_array_id(Some(arr_id), elem);
        self.b.decorate(
            arr,
            Decoration::ArrayStride,
            [Operand::LiteralBit32(stride)],
        );
        let st_id = self.b.id();
        let st = self.b.type_struct_id(Some(st_id), [arr]);
        self.b
            .member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        self.b.decorate(st, Decoration::Block, []);
        self.types.insert(name, st);
        st
    }

    fn words_block(&mut self) -> Word {
        let uint = self.uint;
        self.block_of_runtime_array("words", uint, 4)
    }

    fn pairs_block(&mut self) -> Word {
        let uvec2 = self.uvec2;
        self.block_of_runtime_array("pairs", uvec2, 8)
    }

    fn cbv_block(&mut self) -> Word {
        if let Some(&t) = self.types.get("cbv") {
            return t;
        }
        let n = self.c(4096);
        let arr_id = self.b.id();
        let arr = self.b.type_array_id(Some(arr_id), self.uvec4, n);
        self.b
            .decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(16)]);
        let st_id = self.b.id();
        let st = self.b.type_struct_id(Some(st_id), [arr]);
        self.b
            .member_decorate(st, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        self.b.decorate(st, Decoration::Block, []);
        self.types.insert("cbv", st);
        st
    }

    fn var(&mut self, key: Var) -> Word {
        if let Some(&v) = self.vars.get(&key) {
            return v;
        }
        let (ty, class, set, binding) = match key {
            Var::Ssbo(set, binding) => {
                let blk = self.words_block();
                let arr = self.b.type_runtime_array(blk);
                (arr, StorageClass::StorageBuffer, set, binding)
            }
            Var::Ubo(set, binding) => {
                let blk = self.cbv_block();
                let arr = self.b.type_runtime_array(blk);
                (arr, StorageClass::Uniform, set, binding)
            }
            Var::Texel(set, binding, storage) => {
                let img = self.image(storage);
                let arr = self.b.type_runtime_array(img);
                (arr, StorageClass::UniformConstant, set, binding)
            }
            Var::Sampler(set, binding, arrayed) => {
                let s = self.b.type_sampler();
                let t = if arrayed {
                    self.b.type_runtime_array(s)
                } else {
                    s
                };
                (t, StorageClass::UniformConstant, set, binding)
            }
            Var::Table(set, binding) => {
                let blk = self.pairs_block();
                (blk, StorageClass::StorageBuffer, set, binding)
            }
            Var::RootSsbo(set, binding) => {
                let blk = self.words_block();
                (blk, StorageClass::StorageBuffer, set, binding)
            }
            Var::RootUbo(set, binding) => {
                let blk = self.cbv_block();
                (blk, StorageClass::Uniform, set, binding)
            }
        };
        let ptr = self.b.type_pointer(None, class, ty);
        let v = self.global(ptr, class);
        self.decorate_binding(v, set, binding);
        self.vars.insert(key, v);
        v
    }

    fn image(&mut self, storage: bool) -> Word {
        if storage {
            self.b.type_image(
                self.uint,
                Dim::DimBuffer,
                0,
                0,
                0,
                2,
                ImageFormat::R32ui,
                None,
            )
        } else {
            self.b.type_image(
                self.uint,
                Dim::DimBuffer,
                0,
                0,
                0,
                1,
                ImageFormat::Unknown,
                None,
            )
        }
    }

    /// The 32-bit word at `offset` bytes of the root block.
    pub(crate) fn root_word(&mut self, offset: u32) -> Word {
        let size = self.contract.root_block.size_in_bytes;
        assert!(
            offset + 4 <= size,
            "root word {offset} outside {size} bytes"
        );
        let (var, ubo) = match self.root {
            Some(r) => r,
            None => {
                let r = match self.contract.root_block.location {
                    RootBlockLocation::PushConstants { .. } => {
                        let n = self.c(size / 4);
                        let arr_id = self.b.id();
                        let arr = self.b.type_array_id(Some(arr_id), self.uint, n);
                        self.b
                            .decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
                        let st_id = self.b.id();
                        let st = self.b.type_struct_id(Some(st_id), [arr]);
                        self.b.member_decorate(
                            st,
                            0,
                            Decoration::Offset,
                            [Operand::LiteralBit32(0)],
                        );
                        self.b.decorate(st, Decoration::Block, []);
                        let ptr = self.b.type_pointer(None, StorageClass::PushConstant, st);
                        let v = self.global(ptr, StorageClass::PushConstant);
                        self.interface.push(v);
                        (v, false)
                    }
                    RootBlockLocation::UniformBuffer { set, binding } => {
                        let n = self.c(size.div_ceil(16));
                        let arr_id = self.b.id();
                        let arr = self.b.type_array_id(Some(arr_id), self.uvec4, n);
                        self.b
                            .decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(16)]);
                        let st_id = self.b.id();
                        let st = self.b.type_struct_id(Some(st_id), [arr]);
                        self.b.member_decorate(
                            st,
                            0,
                            Decoration::Offset,
                            [Operand::LiteralBit32(0)],
                        );
                        self.b.decorate(st, Decoration::Block, []);
                        let ptr = self.b.type_pointer(None, StorageClass::Uniform, st);
                        let v = self.global(ptr, StorageClass::Uniform);
                        self.decorate_binding(v, set, binding);
                        (v, true)
                    }
                    RootBlockLocation::Empty => panic!("no root block for compute"),
                };
                self.root = Some(r);
                r
            }
        };
        let zero = self.c(0);
        let uint = self.uint;
        let ptr = if ubo {
            let p = self.b.type_pointer(None, StorageClass::Uniform, uint);
            let row = self.c(offset / 16);
            let col = self.c(offset % 16 / 4);
            self.b.access_chain(p, None, var, [zero, row, col]).unwrap()
        } else {
            let p = self.b.type_pointer(None, StorageClass::PushConstant, uint);
            let i = self.c(offset / 4);
            self.b.access_chain(p, None, var, [zero, i]).unwrap()
        };
        self.b.load(uint, None, ptr, None, []).unwrap()
    }

    fn parameter(&self, index: usize) -> ParameterContract {
        self.contract.parameters[index].clone()
    }

    /// Root constant `word` of root parameter `index`.
    pub(crate) fn root_constant(&mut self, index: usize, word: u32) -> Word {
        let ParameterContract::Constants {
            offset_in_block,
            count,
            ..
        } = self.parameter(index)
        else {
            panic!("parameter {index} is not root constants");
        };
        assert!(word < count);
        self.root_word(offset_in_block + 4 * word)
    }

    /// Heap slot of the table of root parameter `index`, plus `offset_in_table`.
    pub(crate) fn table_slot(&mut self, index: usize, offset_in_table: u32) -> Word {
        let ParameterContract::Table {
            offset_in_block, ..
        } = self.parameter(index)
        else {
            panic!("parameter {index} is not a table");
        };
        let base = self.root_word(offset_in_block);
        self.add_c(base, offset_in_table)
    }

    fn array(&self, view: HeapView) -> HeapArray {
        *self
            .contract
            .heap_array(view)
            .unwrap_or_else(|| panic!("no array for {view:?}"))
    }

    /// Offset-buffer entry `2 * slot + which`.
    fn offset_entry(&mut self, slot: Word, which: u32) -> (Word, Word) {
        let table = self.contract.offset_buffer.expect("an offset buffer");
        let var = self.var(Var::Table(table.set, table.binding));
        let two = self.c(2);
        let i = self.b.i_mul(self.uint, None, slot, two).unwrap();
        let i = self.add_c(i, which);
        let zero = self.c(0);
        let p = self
            .b
            .type_pointer(None, StorageClass::StorageBuffer, self.uvec2);
        let ptr = self.b.access_chain(p, None, var, [zero, i]).unwrap();
        let e = self.b.load(self.uvec2, None, ptr, None, []).unwrap();
        let x = self.b.composite_extract(self.uint, None, e, [0]).unwrap();
        let y = self.b.composite_extract(self.uint, None, e, [1]).unwrap();
        (x, y)
    }

    /// Applies the offset buffer to element index `k` (in `shift`-scaled units of its entry).
    fn windowed(&mut self, slot: Word, k: Word, offsets: OffsetUse) -> Word {
        let (which, shift) = match offsets {
            OffsetUse::None => return k,
            OffsetUse::Bytes => (0, 2),
            OffsetUse::Elements => (1, 0),
        };
        let (x, y) = self.offset_entry(slot, which);
        let (x, y) = if shift == 0 {
            (x, y)
        } else {
            let s = self.c(shift);
            (
                self.b.shift_right_logical(self.uint, None, x, s).unwrap(),
                self.b.shift_right_logical(self.uint, None, y, s).unwrap(),
            )
        };
        let moved = self.add(k, x);
        let inside = self.b.u_less_than(self.boolean, None, k, y).unwrap();
        let oob = self.c(OUT_OF_BOUNDS);
        self.b.select(self.uint, None, inside, moved, oob).unwrap()
    }

    fn ssbo_ptr(&mut self, array: HeapArray, slot: Word, k: Word) -> Word {
        let var = self.var(Var::Ssbo(array.set, array.binding));
        let k = self.windowed(slot, k, array.offsets);
        let zero = self.c(0);
        let p = self
            .b
            .type_pointer(None, StorageClass::StorageBuffer, self.uint);
        self.b.access_chain(p, None, var, [slot, zero, k]).unwrap()
    }

    fn texel_image(&mut self, array: HeapArray, slot: Word) -> Word {
        let storage = array.descriptor_type == DescriptorType::StorageTexelBuffer;
        let var = self.var(Var::Texel(array.set, array.binding, storage));
        let img = self.image(storage);
        let p = self
            .b
            .type_pointer(None, StorageClass::UniformConstant, img);
        let ptr = self.b.access_chain(p, None, var, [slot]).unwrap();
        self.b.load(img, None, ptr, None, []).unwrap()
    }

    fn texel_load_from(&mut self, array: HeapArray, slot: Word, k: Word) -> Word {
        let k = self.windowed(slot, k, array.offsets);
        let img = self.texel_image(array, slot);
        let v = if array.descriptor_type == DescriptorType::StorageTexelBuffer {
            self.b
                .image_read(self.uvec4, None, img, k, None, [])
                .unwrap()
        } else {
            self.b
                .image_fetch(self.uvec4, None, img, k, None, [])
                .unwrap()
        };
        self.b.composite_extract(self.uint, None, v, [0]).unwrap()
    }

    fn texel_store_to(&mut self, array: HeapArray, slot: Word, k: Word, value: Word) {
        let k = self.windowed(slot, k, array.offsets);
        let img = self.texel_image(array, slot);
        let v = self
            .b
            .composite_construct(self.uvec4, None, [value, value, value, value])
            .unwrap();
        self.b.image_write(img, k, v, None, []).unwrap();
    }

    /// Word `k` of the raw or structured (4-byte stride) view at heap `slot`, through whatever
    /// array the contract gives raw views.
    pub(crate) fn raw_load(&mut self, uav: bool, slot: Word, k: Word) -> Word {
        let array = self.array(if uav {
            HeapView::UavRawBuffer
        } else {
            HeapView::SrvRawBuffer
        });
        if array.descriptor_type == DescriptorType::StorageBuffer {
            let ptr = self.ssbo_ptr(array, slot, k);
            self.b.load(self.uint, None, ptr, None, []).unwrap()
        } else {
            self.texel_load_from(array, slot, k)
        }
    }

    pub(crate) fn raw_store(&mut self, slot: Word, k: Word, value: Word) {
        let array = self.array(HeapView::UavRawBuffer);
        if array.descriptor_type == DescriptorType::StorageBuffer {
            let ptr = self.ssbo_ptr(array, slot, k);
            self.b.store(ptr, value, None, []).unwrap();
        } else {
            self.texel_store_to(array, slot, k, value);
        }
    }

    /// Element `k` of a typed (R32_UINT) view.
    pub(crate) fn typed_load(&mut self, uav: bool, slot: Word, k: Word) -> Word {
        let array = self.array(if uav {
            HeapView::UavTexelBuffer
        } else {
            HeapView::SrvTexelBuffer
        });
        self.texel_load_from(array, slot, k)
    }

    pub(crate) fn typed_store(&mut self, slot: Word, k: Word, value: Word) {
        let array = self.array(HeapView::UavTexelBuffer);
        self.texel_store_to(array, slot, k, value);
    }

    /// Word `w` (< 16384) of the CBV at heap `slot`.
    pub(crate) fn cbv_load(&mut self, slot: Word, w: Word) -> Word {
        let array = self.array(HeapView::Cbv);
        if array.descriptor_type == DescriptorType::StorageBuffer {
            let var = self.var(Var::Ssbo(array.set, array.binding));
            let zero = self.c(0);
            let p = self
                .b
                .type_pointer(None, StorageClass::StorageBuffer, self.uint);
            let ptr = self.b.access_chain(p, None, var, [slot, zero, w]).unwrap();
            return self.b.load(self.uint, None, ptr, None, []).unwrap();
        }
        let var = self.var(Var::Ubo(array.set, array.binding));
        let ptr = self.ubo_word_ptr(var, Some(slot), w);
        self.b.load(self.uint, None, ptr, None, []).unwrap()
    }

    fn ubo_word_ptr(&mut self, var: Word, slot: Option<Word>, w: Word) -> Word {
        let zero = self.c(0);
        let two = self.c(2);
        let three = self.c(3);
        let row = self.b.shift_right_logical(self.uint, None, w, two).unwrap();
        let col = self.b.bitwise_and(self.uint, None, w, three).unwrap();
        let p = self.b.type_pointer(None, StorageClass::Uniform, self.uint);
        let mut indices = Vec::new();
        indices.extend(slot);
        indices.extend([zero, row, col]);
        self.b.access_chain(p, None, var, indices).unwrap()
    }

    fn physical_words(&mut self, address: Word) -> Word {
        if !self.addresses {
            self.addresses = true;
            self.b
                .capability(Capability::PhysicalStorageBufferAddresses);
        }
        let blk = self.words_block();
        let p = self
            .b
            .type_pointer(None, StorageClass::PhysicalStorageBuffer, blk);
        self.b.bitcast(p, None, address).unwrap()
    }

    fn physical_word_ptr(&mut self, address: Word, k: Word) -> Word {
        let base = self.physical_words(address);
        let zero = self.c(0);
        let p = self
            .b
            .type_pointer(None, StorageClass::PhysicalStorageBuffer, self.uint);
        self.b.access_chain(p, None, base, [zero, k]).unwrap()
    }

    fn root_address(&mut self, offset: u32) -> Word {
        let lo = self.root_word(offset);
        let hi = self.root_word(offset + 4);
        self.b
            .composite_construct(self.uvec2, None, [lo, hi])
            .unwrap()
    }

    /// Word `k` of the root CBV/SRV/UAV of parameter `index`.
    pub(crate) fn root_load(&mut self, index: usize, k: Word) -> Word {
        match self.parameter(index) {
            ParameterContract::Address {
                offset_in_block, ..
            } => {
                let a = self.root_address(offset_in_block);
                let ptr = self.physical_word_ptr(a, k);
                self.b
                    .load(
                        self.uint,
                        None,
                        ptr,
                        Some(MemoryAccess::ALIGNED),
                        [Operand::LiteralBit32(4)],
                    )
                    .unwrap()
            }
            ParameterContract::Descriptor {
                set,
                binding,
                descriptor_type: DescriptorType::UniformBuffer,
                ..
            } => {
                let var = self.var(Var::RootUbo(set, binding));
                let ptr = self.ubo_word_ptr(var, None, k);
                self.b.load(self.uint, None, ptr, None, []).unwrap()
            }
            ParameterContract::Descriptor { set, binding, .. } => {
                let ptr = self.root_ssbo_ptr(set, binding, k);
                self.b.load(self.uint, None, ptr, None, []).unwrap()
            }
            other => panic!("parameter {index} is not a root descriptor: {other:?}"),
        }
    }

    fn root_ssbo_ptr(&mut self, set: u32, binding: u32, k: Word) -> Word {
        let var = self.var(Var::RootSsbo(set, binding));
        let zero = self.c(0);
        let p = self
            .b
            .type_pointer(None, StorageClass::StorageBuffer, self.uint);
        self.b.access_chain(p, None, var, [zero, k]).unwrap()
    }

    pub(crate) fn root_store(&mut self, index: usize, k: Word, value: Word) {
        match self.parameter(index) {
            ParameterContract::Address {
                offset_in_block, ..
            } => {
                let a = self.root_address(offset_in_block);
                let ptr = self.physical_word_ptr(a, k);
                self.b
                    .store(
                        ptr,
                        value,
                        Some(MemoryAccess::ALIGNED),
                        [Operand::LiteralBit32(4)],
                    )
                    .unwrap();
            }
            ParameterContract::Descriptor { set, binding, .. } => {
                let ptr = self.root_ssbo_ptr(set, binding, k);
                self.b.store(ptr, value, None, []).unwrap();
            }
            other => panic!("parameter {index} is not a root UAV: {other:?}"),
        }
    }

    /// `IncrementCounter()` on the UAV at heap `slot`: the old value, or 0 without a counter.
    pub(crate) fn increment_counter(&mut self, slot: Word) -> Word {
        let table = self.contract.uav_counters.expect("a UAV counter table");
        let var = self.var(Var::Table(table.set, table.binding));
        let zero = self.c(0);
        let p = self
            .b
            .type_pointer(None, StorageClass::StorageBuffer, self.uvec2);
        let ptr = self.b.access_chain(p, None, var, [zero, slot]).unwrap();
        let header = self.b.id();
        let then = self.b.id();
        let merge = self.b.id();
        self.b.branch(header).unwrap();
        self.b.begin_block(Some(header)).unwrap();
        let address = self.b.load(self.uvec2, None, ptr, None, []).unwrap();
        let lo = self
            .b
            .composite_extract(self.uint, None, address, [0])
            .unwrap();
        let hi = self
            .b
            .composite_extract(self.uint, None, address, [1])
            .unwrap();
        let either = self.b.bitwise_or(self.uint, None, lo, hi).unwrap();
        let present = self
            .b
            .i_not_equal(self.boolean, None, either, zero)
            .unwrap();
        self.b
            .selection_merge(merge, SelectionControl::NONE)
            .unwrap();
        self.b.branch_conditional(present, then, merge, []).unwrap();
        self.b.begin_block(Some(then)).unwrap();
        let counter = self.physical_word_ptr(address, zero);
        let device = self.c(1);
        let relaxed = self.c(0);
        let one = self.c(1);
        let old = self
            .b
            .atomic_i_add(self.uint, None, counter, device, relaxed, one)
            .unwrap();
        self.b.branch(merge).unwrap();
        self.b.begin_block(Some(merge)).unwrap();
        self.b
            .phi(self.uint, None, [(old, then), (zero, header)])
            .unwrap()
    }

    /// Loads static sampler `i` and heap sampler `slot` (samplers cannot touch buffers; this
    /// makes the shader use both bindings).
    pub(crate) fn touch_samplers(&mut self, static_index: Option<usize>, heap_slot: Option<Word>) {
        let s = self.b.type_sampler();
        if let Some(i) = static_index {
            let sb = self.contract.static_samplers[i];
            let var = self.var(Var::Sampler(sb.set, sb.binding, false));
            self.b.load(s, None, var, None, []).unwrap();
        }
        if let Some(slot) = heap_slot {
            let array = self.array(HeapView::Sampler);
            let var = self.var(Var::Sampler(array.set, array.binding, true));
            let p = self.b.type_pointer(None, StorageClass::UniformConstant, s);
            let ptr = self.b.access_chain(p, None, var, [slot]).unwrap();
            self.b.load(s, None, ptr, None, []).unwrap();
        }
    }

    /// Finishes the module, checks it with spirv-val (Vulkan 1.2 rules) and returns its words.
    pub(crate) fn finish(mut self) -> Vec<u32> {
        self.b.ret().unwrap();
        self.b.end_function().unwrap();
        let main = self.b.module_ref().functions[0]
            .def
            .as_ref()
            .unwrap()
            .result_id
            .unwrap();
        let addressing = if self.addresses {
            AddressingModel::PhysicalStorageBuffer64
        } else {
            AddressingModel::Logical
        };
        self.b.memory_model(addressing, MemoryModel::GLSL450);
        self.b
            .entry_point(ExecutionModel::GLCompute, main, "main", self.interface);
        self.b
            .execution_mode(main, ExecutionMode::LocalSize, [LOCAL_SIZE, 1, 1]);
        let words = self.b.module().assemble();
        validate(&words);
        words
    }
}

/// Runs spirv-val on the module, failing the test on errors. Without spirv-val the check is
/// skipped with a message (or fails when CI is set).
pub(crate) fn validate(words: &[u32]) {
    let path = std::env::temp_dir().join(format!(
        "dxil-runtime-kit-{}-{:?}.spv",
        std::process::id(),
        std::thread::current().id()
    ));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::File::create(&path)
        .and_then(|mut f| f.write_all(&bytes))
        .unwrap();
    let out = std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.2"])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    match out {
        Ok(out) => assert!(
            out.status.success(),
            "spirv-val rejects the kit's module:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) if std::env::var_os("CI").is_some() => panic!("spirv-val is needed in CI: {e}"),
        Err(e) => eprintln!("SKIPPED spirv-val: {e}"),
    }
}
