; A library with one callable shader.
target datalayout = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%struct.Payload = type { float }

define void @"\01?Callable@@YAXUPayload@@@Z"(%struct.Payload* noalias nocapture %p) #0 {
  %1 = getelementptr inbounds %struct.Payload, %struct.Payload* %p, i32 0, i32 0
  store float 1.000000e+00, float* %1, align 4
  ret void
}

attributes #0 = { nounwind }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!2}
!dx.shaderModel = !{!3}
!dx.entryPoints = !{!4, !6}

!0 = !{!"hand-written test listing"}
!1 = !{i32 1, i32 5}
!2 = !{i32 1, i32 8}
!3 = !{!"lib", i32 6, i32 5}
!4 = !{null, !"", null, null, !5}
!5 = !{i32 0, i64 8388608}
!6 = !{void (%struct.Payload*)* @"\01?Callable@@YAXUPayload@@@Z", !"\01?Callable@@YAXUPayload@@@Z", null, null, !7}
!7 = !{i32 8, i32 12, i32 6, i32 4}
