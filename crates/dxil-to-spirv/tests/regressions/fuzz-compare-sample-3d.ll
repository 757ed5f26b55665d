; Found by the translate fuzz target: a compute shader's SampleCmpLevelZero on an SRV whose metadata
; says Texture3D (resource !8, a Texture2DArray before the edit). It became OpImageSampleDref*
; on a 3D image, which Vulkan forbids (D3D has no SampleCmp on 3D textures either); the translator
; refuses comparison sampling of 3D textures.
target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResBind = type { i32, i32, i32, i8 }
%dx.types.ResourceProperties = type { i32, i32 }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%"class.Texture2D<float>" = type { float, %"class.Texture2D<float>::mips_type" }
%"class.Texture2D<float>::mips_type" = type { i32 }
%"class.Texture2DArray<float>" = type { float, %"class.Texture2DArray<float>::mips_type" }
%"class.Texture2DArray<float>::mips_type" = type { i32 }
%"class.TextureCube<float>" = type { float }
%"class.TextureCubeArray<float>" = type { float }
%"class.Texture3D<float>" = type { float, %"class.Texture3D<float>::mips_type" }
%"class.Texture3D<float>::mips_type" = type { i32 }
%"class.RWStructuredBuffer<float>" = type { float }
%struct.SamplerState = type { i32 }
%struct.SamplerComparisonState = type { i32 }

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 0, i32 0, i32 0, i8 1 }, i32 0, i1 false)
  %2 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 4, i32 4, i32 0, i8 0 }, i32 4, i1 false)
  %3 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 3, i32 3, i32 0, i8 0 }, i32 3, i1 false)
  %4 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 2, i32 2, i32 0, i8 0 }, i32 2, i1 false)
  %5 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 1, i32 1, i32 0, i8 0 }, i32 1, i1 false)
  %6 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind zeroinitializer, i32 0, i1 false)
  %7 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 1, i32 1, i32 0, i8 3 }, i32 1, i1 false)
  %8 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind { i32 0, i32 0, i32 0, i8 3 }, i32 0, i1 false)
  %9 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %10 = uitofp i32 %9 to float
  %11 = fmul fast float %10, 0x3FB99999A0000000
  %12 = fmul fast float %10, 0x3FC99999A0000000
  %13 = fmul fast float %10, 0x3FD3333340000000
  %14 = fmul fast float %10, 0x3FD99999A0000000
  %15 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %6, %dx.types.ResourceProperties { i32 2, i32 265 })
  %16 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %17 = call %dx.types.ResRet.f32 @dx.op.sample.f32(i32 60, %dx.types.Handle %15, %dx.types.Handle %16, float %11, float %12, float undef, float undef, i32 0, i32 0, i32 undef, float undef)
  %18 = extractvalue %dx.types.ResRet.f32 %17, 0
  %19 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %20 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %19, i32 %9, i32 0, i8 1, i32 4)
  %21 = extractvalue %dx.types.ResRet.f32 %20, 0
  %22 = fadd fast float %21, %18
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %19, i32 %9, i32 0, float %22, float undef, float undef, float undef, i8 1, i32 4)
  %23 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %5, %dx.types.ResourceProperties { i32 7, i32 265 })
  %24 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %25 = call %dx.types.ResRet.f32 @dx.op.sample.f32(i32 60, %dx.types.Handle %23, %dx.types.Handle %24, float %11, float %12, float %13, float undef, i32 0, i32 0, i32 undef, float undef)
  %26 = extractvalue %dx.types.ResRet.f32 %25, 0
  %27 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %28 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %27, i32 %9, i32 0, i8 1, i32 4)
  %29 = extractvalue %dx.types.ResRet.f32 %28, 0
  %30 = fadd fast float %29, %26
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %27, i32 %9, i32 0, float %30, float undef, float undef, float undef, i8 1, i32 4)
  %31 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %4, %dx.types.ResourceProperties { i32 5, i32 265 })
  %32 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %33 = call %dx.types.ResRet.f32 @dx.op.sample.f32(i32 60, %dx.types.Handle %31, %dx.types.Handle %32, float %11, float %12, float %13, float undef, i32 undef, i32 undef, i32 undef, float undef)
  %34 = extractvalue %dx.types.ResRet.f32 %33, 0
  %35 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %36 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %35, i32 %9, i32 0, i8 1, i32 4)
  %37 = extractvalue %dx.types.ResRet.f32 %36, 0
  %38 = fadd fast float %37, %34
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %35, i32 %9, i32 0, float %38, float undef, float undef, float undef, i8 1, i32 4)
  %39 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 9, i32 265 })
  %40 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %41 = call %dx.types.ResRet.f32 @dx.op.sample.f32(i32 60, %dx.types.Handle %39, %dx.types.Handle %40, float %11, float %12, float %13, float %14, i32 undef, i32 undef, i32 undef, float undef)
  %42 = extractvalue %dx.types.ResRet.f32 %41, 0
  %43 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %44 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %43, i32 %9, i32 0, i8 1, i32 4)
  %45 = extractvalue %dx.types.ResRet.f32 %44, 0
  %46 = fadd fast float %45, %42
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %43, i32 %9, i32 0, float %46, float undef, float undef, float undef, i8 1, i32 4)
  %47 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4, i32 265 })
  %48 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %49 = call %dx.types.ResRet.f32 @dx.op.sample.f32(i32 60, %dx.types.Handle %47, %dx.types.Handle %48, float %11, float %12, float %13, float undef, i32 0, i32 0, i32 0, float undef)
  %50 = extractvalue %dx.types.ResRet.f32 %49, 0
  %51 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %52 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %51, i32 %9, i32 0, i8 1, i32 4)
  %53 = extractvalue %dx.types.ResRet.f32 %52, 0
  %54 = fadd fast float %53, %50
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %51, i32 %9, i32 0, float %54, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.barrier(i32 80, i32 3)
  %55 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %6, %dx.types.ResourceProperties { i32 2, i32 265 })
  %56 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %57 = call %dx.types.ResRet.f32 @dx.op.sampleBias.f32(i32 61, %dx.types.Handle %55, %dx.types.Handle %56, float %11, float %12, float undef, float undef, i32 0, i32 0, i32 undef, float %14, float undef)
  %58 = extractvalue %dx.types.ResRet.f32 %57, 0
  %59 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %60 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %59, i32 %9, i32 0, i8 1, i32 4)
  %61 = extractvalue %dx.types.ResRet.f32 %60, 0
  %62 = fadd fast float %61, %58
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %59, i32 %9, i32 0, float %62, float undef, float undef, float undef, i8 1, i32 4)
  %63 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %5, %dx.types.ResourceProperties { i32 7, i32 265 })
  %64 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %65 = call %dx.types.ResRet.f32 @dx.op.sampleBias.f32(i32 61, %dx.types.Handle %63, %dx.types.Handle %64, float %11, float %12, float %13, float undef, i32 0, i32 0, i32 undef, float %14, float undef)
  %66 = extractvalue %dx.types.ResRet.f32 %65, 0
  %67 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %68 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %67, i32 %9, i32 0, i8 1, i32 4)
  %69 = extractvalue %dx.types.ResRet.f32 %68, 0
  %70 = fadd fast float %69, %66
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %67, i32 %9, i32 0, float %70, float undef, float undef, float undef, i8 1, i32 4)
  %71 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %4, %dx.types.ResourceProperties { i32 5, i32 265 })
  %72 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %73 = call %dx.types.ResRet.f32 @dx.op.sampleBias.f32(i32 61, %dx.types.Handle %71, %dx.types.Handle %72, float %11, float %12, float %13, float undef, i32 undef, i32 undef, i32 undef, float %14, float undef)
  %74 = extractvalue %dx.types.ResRet.f32 %73, 0
  %75 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %76 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %75, i32 %9, i32 0, i8 1, i32 4)
  %77 = extractvalue %dx.types.ResRet.f32 %76, 0
  %78 = fadd fast float %77, %74
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %75, i32 %9, i32 0, float %78, float undef, float undef, float undef, i8 1, i32 4)
  %79 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 9, i32 265 })
  %80 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %81 = call %dx.types.ResRet.f32 @dx.op.sampleBias.f32(i32 61, %dx.types.Handle %79, %dx.types.Handle %80, float %11, float %12, float %13, float %14, i32 undef, i32 undef, i32 undef, float %14, float undef)
  %82 = extractvalue %dx.types.ResRet.f32 %81, 0
  %83 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %84 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %83, i32 %9, i32 0, i8 1, i32 4)
  %85 = extractvalue %dx.types.ResRet.f32 %84, 0
  %86 = fadd fast float %85, %82
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %83, i32 %9, i32 0, float %86, float undef, float undef, float undef, i8 1, i32 4)
  %87 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4, i32 265 })
  %88 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %89 = call %dx.types.ResRet.f32 @dx.op.sampleBias.f32(i32 61, %dx.types.Handle %87, %dx.types.Handle %88, float %11, float %12, float %13, float undef, i32 0, i32 0, i32 0, float %14, float undef)
  %90 = extractvalue %dx.types.ResRet.f32 %89, 0
  %91 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %92 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %91, i32 %9, i32 0, i8 1, i32 4)
  %93 = extractvalue %dx.types.ResRet.f32 %92, 0
  %94 = fadd fast float %93, %90
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %91, i32 %9, i32 0, float %94, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.barrier(i32 80, i32 3)
  %95 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %6, %dx.types.ResourceProperties { i32 2, i32 265 })
  %96 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %7, %dx.types.ResourceProperties { i32 32782, i32 0 })
  %97 = call %dx.types.ResRet.f32 @dx.op.sampleCmp.f32(i32 64, %dx.types.Handle %95, %dx.types.Handle %96, float %11, float %12, float undef, float undef, i32 0, i32 0, i32 undef, float %14, float undef)
  %98 = extractvalue %dx.types.ResRet.f32 %97, 0
  %99 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %100 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %99, i32 %9, i32 0, i8 1, i32 4)
  %101 = extractvalue %dx.types.ResRet.f32 %100, 0
  %102 = fadd fast float %101, %98
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %99, i32 %9, i32 0, float %102, float undef, float undef, float undef, i8 1, i32 4)
  %103 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %5, %dx.types.ResourceProperties { i32 7, i32 265 })
  %104 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %7, %dx.types.ResourceProperties { i32 32782, i32 0 })
  %105 = call %dx.types.ResRet.f32 @dx.op.sampleCmp.f32(i32 64, %dx.types.Handle %103, %dx.types.Handle %104, float %11, float %12, float %13, float undef, i32 0, i32 0, i32 undef, float %14, float undef)
  %106 = extractvalue %dx.types.ResRet.f32 %105, 0
  %107 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %108 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %107, i32 %9, i32 0, i8 1, i32 4)
  %109 = extractvalue %dx.types.ResRet.f32 %108, 0
  %110 = fadd fast float %109, %106
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %107, i32 %9, i32 0, float %110, float undef, float undef, float undef, i8 1, i32 4)
  %111 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %4, %dx.types.ResourceProperties { i32 5, i32 265 })
  %112 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %7, %dx.types.ResourceProperties { i32 32782, i32 0 })
  %113 = call %dx.types.ResRet.f32 @dx.op.sampleCmp.f32(i32 64, %dx.types.Handle %111, %dx.types.Handle %112, float %11, float %12, float %13, float undef, i32 undef, i32 undef, i32 undef, float %14, float undef)
  %114 = extractvalue %dx.types.ResRet.f32 %113, 0
  %115 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %116 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %115, i32 %9, i32 0, i8 1, i32 4)
  %117 = extractvalue %dx.types.ResRet.f32 %116, 0
  %118 = fadd fast float %117, %114
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %115, i32 %9, i32 0, float %118, float undef, float undef, float undef, i8 1, i32 4)
  %119 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %3, %dx.types.ResourceProperties { i32 9, i32 265 })
  %120 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %7, %dx.types.ResourceProperties { i32 32782, i32 0 })
  %121 = call %dx.types.ResRet.f32 @dx.op.sampleCmp.f32(i32 64, %dx.types.Handle %119, %dx.types.Handle %120, float %11, float %12, float %13, float %14, i32 undef, i32 undef, i32 undef, float %14, float undef)
  %122 = extractvalue %dx.types.ResRet.f32 %121, 0
  %123 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %124 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %123, i32 %9, i32 0, i8 1, i32 4)
  %125 = extractvalue %dx.types.ResRet.f32 %124, 0
  %126 = fadd fast float %125, %122
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %123, i32 %9, i32 0, float %126, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.barrier(i32 80, i32 3)
  %127 = call float @dx.op.unary.f32(i32 83, float %14)
  %128 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %129 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %128, i32 %9, i32 0, i8 1, i32 4)
  %130 = extractvalue %dx.types.ResRet.f32 %129, 0
  %131 = fadd fast float %130, %127
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %128, i32 %9, i32 0, float %131, float undef, float undef, float undef, i8 1, i32 4)
  %132 = call float @dx.op.unary.f32(i32 84, float %14)
  %133 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %134 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %133, i32 %9, i32 0, i8 1, i32 4)
  %135 = extractvalue %dx.types.ResRet.f32 %134, 0
  %136 = fadd fast float %135, %132
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %133, i32 %9, i32 0, float %136, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.barrier(i32 80, i32 3)
  %137 = call float @dx.op.unary.f32(i32 83, float %14)
  %138 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %139 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %138, i32 %9, i32 0, i8 1, i32 4)
  %140 = extractvalue %dx.types.ResRet.f32 %139, 0
  %141 = fadd fast float %140, %137
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %138, i32 %9, i32 0, float %141, float undef, float undef, float undef, i8 1, i32 4)
  %142 = call float @dx.op.unary.f32(i32 84, float %14)
  %143 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %144 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %143, i32 %9, i32 0, i8 1, i32 4)
  %145 = extractvalue %dx.types.ResRet.f32 %144, 0
  %146 = fadd fast float %145, %142
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %143, i32 %9, i32 0, float %146, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.barrier(i32 80, i32 3)
  %147 = call float @dx.op.unary.f32(i32 12, float %14)
  %148 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %149 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %148, i32 %9, i32 0, i8 1, i32 4)
  %150 = extractvalue %dx.types.ResRet.f32 %149, 0
  %151 = fadd fast float %150, %147
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %148, i32 %9, i32 0, float %151, float undef, float undef, float undef, i8 1, i32 4)
  %152 = call float @dx.op.unary.f32(i32 86, float %14)
  %153 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %154 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %153, i32 %9, i32 0, i8 1, i32 4)
  %155 = extractvalue %dx.types.ResRet.f32 %154, 0
  %156 = fadd fast float %155, %152
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %153, i32 %9, i32 0, float %156, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.barrier(i32 80, i32 3)
  %157 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %6, %dx.types.ResourceProperties { i32 2, i32 265 })
  %158 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %159 = call float @dx.op.calculateLOD.f32(i32 81, %dx.types.Handle %157, %dx.types.Handle %158, float %11, float %12, float undef, i1 true)
  %160 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %161 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %160, i32 %9, i32 0, i8 1, i32 4)
  %162 = extractvalue %dx.types.ResRet.f32 %161, 0
  %163 = fadd fast float %162, %159
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %160, i32 %9, i32 0, float %163, float undef, float undef, float undef, i8 1, i32 4)
  %164 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %5, %dx.types.ResourceProperties { i32 7, i32 265 })
  %165 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %166 = call float @dx.op.calculateLOD.f32(i32 81, %dx.types.Handle %164, %dx.types.Handle %165, float %11, float %12, float undef, i1 true)
  %167 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %168 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %167, i32 %9, i32 0, i8 1, i32 4)
  %169 = extractvalue %dx.types.ResRet.f32 %168, 0
  %170 = fadd fast float %169, %166
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %167, i32 %9, i32 0, float %170, float undef, float undef, float undef, i8 1, i32 4)
  %171 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4, i32 265 })
  %172 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %173 = call float @dx.op.calculateLOD.f32(i32 81, %dx.types.Handle %171, %dx.types.Handle %172, float %11, float %12, float %13, i1 true)
  %174 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %175 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %174, i32 %9, i32 0, i8 1, i32 4)
  %176 = extractvalue %dx.types.ResRet.f32 %175, 0
  %177 = fadd fast float %176, %173
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %174, i32 %9, i32 0, float %177, float undef, float undef, float undef, i8 1, i32 4)
  call void @dx.op.barrier(i32 80, i32 3)
  %178 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %6, %dx.types.ResourceProperties { i32 2, i32 265 })
  %179 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %180 = call float @dx.op.calculateLOD.f32(i32 81, %dx.types.Handle %178, %dx.types.Handle %179, float %11, float %12, float undef, i1 false)
  %181 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %182 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %181, i32 %9, i32 0, i8 1, i32 4)
  %183 = extractvalue %dx.types.ResRet.f32 %182, 0
  %184 = fadd fast float %183, %180
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %181, i32 %9, i32 0, float %184, float undef, float undef, float undef, i8 1, i32 4)
  %185 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %5, %dx.types.ResourceProperties { i32 7, i32 265 })
  %186 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %187 = call float @dx.op.calculateLOD.f32(i32 81, %dx.types.Handle %185, %dx.types.Handle %186, float %11, float %12, float undef, i1 false)
  %188 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %189 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %188, i32 %9, i32 0, i8 1, i32 4)
  %190 = extractvalue %dx.types.ResRet.f32 %189, 0
  %191 = fadd fast float %190, %187
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %188, i32 %9, i32 0, float %191, float undef, float undef, float undef, i8 1, i32 4)
  %192 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %2, %dx.types.ResourceProperties { i32 4, i32 265 })
  %193 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %8, %dx.types.ResourceProperties { i32 14, i32 0 })
  %194 = call float @dx.op.calculateLOD.f32(i32 81, %dx.types.Handle %192, %dx.types.Handle %193, float %11, float %12, float %13, i1 false)
  %195 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 4108, i32 4 })
  %196 = call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32 139, %dx.types.Handle %195, i32 %9, i32 0, i8 1, i32 4)
  %197 = extractvalue %dx.types.ResRet.f32 %196, 0
  %198 = fadd fast float %197, %194
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %195, i32 %9, i32 0, float %198, float undef, float undef, float undef, i8 1, i32 4)
  ret void
}

; Function Attrs: nounwind readnone
declare i32 @dx.op.threadId.i32(i32, i32) #0

; Function Attrs: nounwind readonly
declare float @dx.op.calculateLOD.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, i1) #1

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.sample.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float) #1

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.rawBufferLoad.f32(i32, %dx.types.Handle, i32, i32, i8, i32) #1

; Function Attrs: nounwind
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32) #2

; Function Attrs: noduplicate nounwind
declare void @dx.op.barrier(i32, i32) #3

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.sampleCmp.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float) #1

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.f32 @dx.op.sampleBias.f32(i32, %dx.types.Handle, %dx.types.Handle, float, float, float, float, i32, i32, i32, float, float) #1

; Function Attrs: nounwind readnone
declare float @dx.op.unary.f32(i32, float) #0

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties) #0

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.createHandleFromBinding(i32, %dx.types.ResBind, i32, i1) #0

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind readonly }
attributes #2 = { nounwind }
attributes #3 = { noduplicate nounwind }

!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.resources = !{!4}
!dx.entryPoints = !{!18}

!0 = !{i32 2}
!1 = !{i32 1, i32 6}
!2 = !{i32 1, i32 10}
!3 = !{!"cs", i32 6, i32 6}
!4 = !{!5, !12, null, !15}
!5 = !{!6, !8, !9, !10, !11}
!6 = !{i32 0, %"class.Texture2D<float>"* undef, !"", i32 0, i32 0, i32 1, i32 2, i32 0, !7}
!7 = !{i32 0, i32 9}
!8 = !{i32 1, %"class.Texture2DArray<float>"* undef, !"", i32 0, i32 1, i32 1, i32 4, i32 0, !7}
!9 = !{i32 2, %"class.TextureCube<float>"* undef, !"", i32 0, i32 2, i32 1, i32 5, i32 0, !7}
!10 = !{i32 3, %"class.TextureCubeArray<float>"* undef, !"", i32 0, i32 3, i32 1, i32 9, i32 0, !7}
!11 = !{i32 4, %"class.Texture3D<float>"* undef, !"", i32 0, i32 4, i32 1, i32 4, i32 0, !7}
!12 = !{!13}
!13 = !{i32 0, %"class.RWStructuredBuffer<float>"* undef, !"", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !14}
!14 = !{i32 1, i32 4}
!15 = !{!16, !17}
!16 = !{i32 0, %struct.SamplerState* undef, !"", i32 0, i32 0, i32 1, i32 0, null}
!17 = !{i32 1, %struct.SamplerComparisonState* undef, !"", i32 0, i32 1, i32 1, i32 1, null}
!18 = !{void ()* @main, !"main", null, !4, !19}
!19 = !{i32 0, i64 8388624, i32 4, !20}
!20 = !{i32 64, i32 1, i32 1}
