import ctypes, sys
lib = ctypes.CDLL(sys.argv[1] + '/libnvrtc.so.13')
src = open(sys.argv[2]).read().encode()
prog = ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"probe.cu", 0, None, None) == 0
opts = [b"-arch=sm_90", b"-Ikernels", b"-default-device"]
arr = (ctypes.c_char_p * len(opts))(*opts)
rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t(); lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n)); log = ctypes.create_string_buffer(n.value); lib.nvrtcGetProgramLog(prog, log); print(log.value.decode())
assert rc == 0, rc
lib.nvrtcGetCUBINSize(prog, ctypes.byref(n)); buf = ctypes.create_string_buffer(n.value); lib.nvrtcGetCUBIN(prog, buf)
open(sys.argv[3], 'wb').write(buf.raw)
