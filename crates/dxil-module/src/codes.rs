//! LLVM 3.7 bitcode record codes (`FUNC_CODE_*` of LLVM's `LLVMBitCodes.h`), the one home the
//! reader, the writer and the bitstream dump's names take them from.

/// Declares each code as a constant and lists it with its name in `NAMES`, so that a code and
/// the name a dump prints for it are written once.
macro_rules! record_codes {
    ($($name:ident = $code:literal,)*) => {
        $(pub const $name: u32 = $code;)*

        /// Every code with its name, for dumps.
        pub const NAMES: &[(u32, &str)] = &[$(($name, stringify!($name)),)*];
    };
}

/// Records of a function block.
pub mod function {
    record_codes! {
        DECLAREBLOCKS = 1,
        INST_BINOP = 2,
        INST_CAST = 3,
        INST_GEP_OLD = 4,
        INST_SELECT = 5,
        INST_EXTRACTELT = 6,
        INST_INSERTELT = 7,
        INST_SHUFFLEVEC = 8,
        INST_CMP = 9,
        INST_RET = 10,
        INST_BR = 11,
        INST_SWITCH = 12,
        INST_INVOKE = 13,
        INST_UNREACHABLE = 15,
        INST_PHI = 16,
        INST_ALLOCA = 19,
        INST_LOAD = 20,
        INST_VAARG = 23,
        INST_STORE_OLD = 24,
        INST_EXTRACTVAL = 26,
        INST_INSERTVAL = 27,
        INST_CMP2 = 28,
        INST_VSELECT = 29,
        INST_INBOUNDS_GEP_OLD = 30,
        INST_INDIRECTBR = 31,
        DEBUG_LOC_AGAIN = 33,
        INST_CALL = 34,
        DEBUG_LOC = 35,
        INST_FENCE = 36,
        INST_CMPXCHG_OLD = 37,
        INST_ATOMICRMW = 38,
        INST_RESUME = 39,
        INST_LANDINGPAD_OLD = 40,
        INST_LOADATOMIC = 41,
        INST_STOREATOMIC_OLD = 42,
        INST_GEP = 43,
        INST_STORE = 44,
        INST_STOREATOMIC = 45,
        INST_CMPXCHG = 46,
        INST_LANDINGPAD = 47,
    }
}
