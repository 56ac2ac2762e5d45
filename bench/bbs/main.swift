import BBS
import Foundation

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
var a = Fp(3), b = Fp(5)
let n = 5_000_000
let t0 = now()
for _ in 0..<n { a = a * b; b = b + a }
let t1 = now()
print("fp mul+add ns", (t1 - t0) / Double(n) * 1e9, a.isZero)
var c = Fp(7)
let t2 = now()
for _ in 0..<n { c = c * c }
let t3 = now()
print("fp sq ns", (t3 - t2) / Double(n) * 1e9, c.isZero)
