// A host emulation of the part of the CUDA driver API (libcuda.so.1) that Penstock calls, so
// that the Java bindings (CudaDriver: FFM descriptors, out-parameters, kernel parameter packing,
// host-function upcalls from a driver thread, the per-thread current context) run end to end
// on a machine without a GPU. It is a test double for the bindings, not a GPU: the kernels are
// encode.cu, relax.cu and eam.cu compiled for the host (host_cuda.h), and what it measures says
// nothing about a GPU.
//
// Build (HostDriver.java does it):
//   g++ -std=c++20 -O2 -shared -fPIC -pthread -Istub -I/usr/local/cuda/include hostcuda.cpp
// Every API function is defined against the real cuda.h, so a prototype that differs from the
// driver's fails to compile. It is strict where the real driver is, and where a mistake would
// go unnoticed on a GPU for a while:
// - device memory is a PROT_NONE view of a memfd (a host read of a device address crashes) with
//   a guard page after it; copies and kernels use a second, writable view of the same pages;
// - every call needs a current context on the calling thread (CUDA_ERROR_INVALID_CONTEXT) and
//   none may come from a host function (CUDA_ERROR_NOT_PERMITTED);
// - handles (streams, events, modules, functions, allocations) are checked, and must belong to
//   the calling thread's current context (two devices: each call must make its own current);
// - kernel parameters are copied at launch by the sizes the PTX declares (as the driver does),
//   and the PTX's sizes must equal the host kernel's C++ parameter sizes;
// - a host→device copy from pageable memory takes its bytes at the call; a device→host copy
//   into pageable memory returns when done (both as the driver documents).
// Each stream is a thread running its work in order; events complete in stream order.
#include <cuda.h>

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "host_cuda.h"
#include "../../main/cuda/encode.cu"
#include "../../main/cuda/relax.cu"
#include "../../main/cuda/eam.cu"
#include "../../main/cuda/snap.cu"

namespace {

std::mutex lock;  // guards every table below
bool initialised = false;
int device_count = 2;  // PENSTOCK_HOSTCUDA_DEVICES sets it (1 to 8)

struct Context {
    int device;
    int references = 0;
};
Context contexts[8];
thread_local Context* current = nullptr;
thread_local bool in_host_function = false;

struct Allocation {
    size_t bytes;
    size_t mapped;
    void* work;  // the writable view
    Context* context;
};
std::map<uintptr_t, Allocation> device_memory;   // by device address (the PROT_NONE view)
std::map<uintptr_t, size_t> pinned_memory;        // by host address
std::map<uintptr_t, size_t> registered_memory;    // by host address
long launches = 0, host_functions = 0, pageable_copies = 0;

void complain(const std::string& what) { std::fprintf(stderr, "hostcuda: %s\n", what.c_str()); }

// The allocation [address, address + bytes) lies in, of any context, or null.
const Allocation* allocation_of(uintptr_t address, size_t bytes) {
    auto it = device_memory.upper_bound(address);
    if (it == device_memory.begin()) return nullptr;
    --it;
    if (address + bytes > it->first + it->second.bytes) return nullptr;
    return &it->second;
}

// The writable view of [address, address + bytes) if it lies in one device allocation of the
// current context (memory of another device is not this one's to use).
void* device_view(uintptr_t address, size_t bytes) {
    const Allocation* a = allocation_of(address, bytes);
    if (a == nullptr || a->context != current) return nullptr;
    auto base = device_memory.upper_bound(address);
    --base;
    return static_cast<char*>(a->work) + (address - base->first);
}

bool in_ranges(const std::map<uintptr_t, size_t>& ranges, uintptr_t a, size_t bytes) {
    auto it = ranges.upper_bound(a);
    if (it == ranges.begin()) return false;
    --it;
    return a + bytes <= it->first + it->second;
}

bool is_pinned(const void* p, size_t bytes) {
    auto a = reinterpret_cast<uintptr_t>(p);
    return in_ranges(pinned_memory, a, bytes) || in_ranges(registered_memory, a, bytes);
}

// The checks every call after cuInit makes.
CUresult enter(bool needs_context = true) {
    if (in_host_function) return CUDA_ERROR_NOT_PERMITTED;
    if (!initialised) return CUDA_ERROR_NOT_INITIALIZED;
    if (needs_context && (current == nullptr || current->references == 0)) return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

struct Stream {
    Context* context = current;
    std::mutex m;
    std::condition_variable cv;
    std::deque<std::function<void()>> work;
    bool busy = false;
    bool destroyed = false;

    void enqueue(std::function<void()> op) {
        std::lock_guard<std::mutex> g(m);
        work.push_back(std::move(op));
        cv.notify_all();
    }

    void drain() {
        std::unique_lock<std::mutex> g(m);
        cv.wait(g, [&] { return work.empty() && !busy; });
    }

    static void run(std::shared_ptr<Stream> s) {
        std::unique_lock<std::mutex> g(s->m);
        while (true) {
            s->cv.wait(g, [&] { return !s->work.empty() || s->destroyed; });
            if (s->work.empty()) return;  // destroyed and done
            auto op = std::move(s->work.front());
            s->work.pop_front();
            s->busy = true;
            g.unlock();
            op();
            g.lock();
            s->busy = false;
            s->cv.notify_all();
        }
    }
};
std::map<CUstream, std::shared_ptr<Stream>> streams;

struct Event {
    Context* context = current;
    std::mutex m;
    std::condition_variable cv;
    unsigned long recorded = 0, completed = 0;
    bool timing = true;
    std::chrono::steady_clock::time_point at;  // when the stream last reached it
};
std::map<CUevent, std::shared_ptr<Event>> events;

// A kernel: its host body and the byte size of each parameter, as C++ declares them.
struct Kernel {
    std::vector<size_t> sizes;
    bool syncs;
    // binds copied parameter bytes to a runnable launch body; says why not (a bad pointer)
    std::function<std::function<void()>(const std::vector<std::vector<char>>&, std::string&)> bind;
};

template <typename T>
bool load(const std::vector<char>& bytes, T& out, std::string& why, size_t i) {
    std::memcpy(&out, bytes.data(), sizeof(T));
    if constexpr (std::is_pointer_v<T>) {
        void* w = device_view(reinterpret_cast<uintptr_t>(out), 1);
        if (w == nullptr) {
            why = "parameter " + std::to_string(i) + " (" + std::to_string(reinterpret_cast<uintptr_t>(out)) + ") is not device memory";
            return false;
        }
        out = static_cast<T>(w);
    }
    return true;
}

template <typename... A, size_t... I>
std::function<void()> bind_arguments(void (*f)(A...), const std::vector<std::vector<char>>& args, std::string& why, std::index_sequence<I...>) {
    std::tuple<A...> values;
    bool ok = (load(args[I], std::get<I>(values), why, I) && ...);
    if (!ok) return nullptr;
    return [f, values] { std::apply(f, values); };
}

template <typename... A>
Kernel kernel(void (*f)(A...), bool syncs) {
    return Kernel{{sizeof(A)...}, syncs, [f](const std::vector<std::vector<char>>& args, std::string& why) {
                      return bind_arguments(f, args, why, std::index_sequence_for<A...>{});
                  }};
}

const std::map<std::string, Kernel>& host_kernels() {
    static const std::map<std::string, Kernel> k = [] {
        std::map<std::string, Kernel> m;
#define HOST_KERNELS(NAME)                                         \
    m.emplace("amplitude_" #NAME, kernel(&amplitude_##NAME, true)); \
    m.emplace("angle_" #NAME, kernel(&angle_##NAME, false));        \
    m.emplace("basis_" #NAME, kernel(&basis_##NAME, false));        \
    m.emplace("phase_" #NAME, kernel(&phase_##NAME, false));        \
    m.emplace("iqp_phases_" #NAME, kernel(&iqp_phases_##NAME, false));
        HOST_KERNELS(f64_c128)
        HOST_KERNELS(f32_c64)
        HOST_KERNELS(f64_c64)
#undef HOST_KERNELS
        m.emplace("butterfly_c128", kernel(&butterfly_c128, false));
        m.emplace("butterfly_c64", kernel(&butterfly_c64, false));
        m.emplace("read_all", kernel(&read_all, false));
        m.emplace("relax_list_check", kernel(&relax_list_check, false));
        m.emplace("relax_list_moved", kernel(&relax_list_moved, false));
        m.emplace("relax_list_grid", kernel(&relax_list_grid, false));
        m.emplace("relax_list_count", kernel(&relax_list_count, false));
        m.emplace("relax_list_prefix", kernel(&relax_list_prefix, false));
        m.emplace("relax_list_scatter", kernel(&relax_list_scatter, false));
        m.emplace("relax_list_build", kernel(&relax_list_build, false));
        m.emplace("relax_forces", kernel(&relax_forces, false));
        m.emplace("relax_reduce", kernel(&relax_reduce, false));
        m.emplace("relax_virial", kernel(&relax_virial, false));
        m.emplace("relax_fire_step", kernel(&relax_fire_step, false));
        m.emplace("relax_nve", kernel(&relax_nve, false));
        m.emplace("relax_langevin", kernel(&relax_langevin, false));
        m.emplace("relax_nh_chain", kernel(&relax_nh_chain, false));
        m.emplace("relax_mtk", kernel(&relax_mtk, false));
        m.emplace("relax_fire_cell", kernel(&relax_fire_cell, false));
        m.emplace("relax_cell_forces", kernel(&relax_cell_forces, false));
        m.emplace("relax_fire2_step", kernel(&relax_fire2_step, false));
        m.emplace("relax_check", kernel(&relax_check, false));
        m.emplace("relax_gather_systems", kernel(&relax_gather_systems, false));
        m.emplace("relax_gather_atoms", kernel(&relax_gather_atoms, false));
        m.emplace("relax_move_systems", kernel(&relax_move_systems, false));
        m.emplace("eam_density", kernel(&eam_density, false));
        m.emplace("eam_embed", kernel(&eam_embed, false));
        m.emplace("eam_force", kernel(&eam_force, false));
        m.emplace("snap_ui", kernel(&snap_ui, false));
        m.emplace("snap_bi", kernel(&snap_bi, false));
        m.emplace("snap_linear", kernel(&snap_linear, false));
        m.emplace("mliap_nn", kernel(&mliap_nn, false));
        m.emplace("snap_yi", kernel(&snap_yi, false));
        m.emplace("snap_deidrj", kernel(&snap_deidrj, false));
        m.emplace("snap_force", kernel(&snap_force, false));
        m.emplace("snap_virial", kernel(&snap_virial, false));
        m.emplace("zbl_add", kernel(&zbl_add, false));
        return m;
    }();
    return k;
}

struct Function {
    Context* context;
    std::string name;
    std::vector<size_t> sizes;  // as the PTX declares them
    const Kernel* kernel;
};
struct Module {
    Context* context;
    std::map<std::string, std::vector<size_t>> entries;  // name -> PTX parameter sizes
    std::vector<std::unique_ptr<Function>> functions;
};
std::set<Module*> modules;
std::set<Function*> functions;

size_t ptx_size(const std::string& type, const std::string& rest) {
    if (type == ".align") {  // .align N .b8 name[K]
        auto open = rest.find('['), close = rest.find(']');
        return open == std::string::npos ? 0 : std::stoul(rest.substr(open + 1, close - open - 1));
    }
    if (type.size() < 3) return 0;
    return std::stoul(type.substr(2)) / 8;  // .u64 .s32 .b64 .f32 …
}

// The entries of a PTX text with their parameter sizes; empty when it does not look like PTX.
std::map<std::string, std::vector<size_t>> parse_ptx(const std::string& ptx) {
    std::map<std::string, std::vector<size_t>> entries;
    if (ptx.find(".version") == std::string::npos || ptx.find(".target") == std::string::npos) return entries;
    size_t at = 0;
    while ((at = ptx.find(".entry ", at)) != std::string::npos) {
        size_t open = ptx.find('(', at);
        size_t close = ptx.find(')', open);
        std::string name = ptx.substr(at + 7, open - at - 7);
        while (!name.empty() && name.back() == ' ') name.pop_back();
        std::vector<size_t> sizes;
        std::string params = ptx.substr(open + 1, close - open - 1);
        size_t p = 0;
        while ((p = params.find(".param", p)) != std::string::npos) {
            size_t t0 = params.find('.', p + 6);
            size_t t1 = params.find(' ', t0);
            size_t end = params.find_first_of(",\n", t1);
            sizes.push_back(ptx_size(params.substr(t0, t1 - t0), params.substr(t1, end - t1)));
            p = t1;
        }
        entries[name] = sizes;
        at = close;
    }
    return entries;
}

// The writable view of the device side of a copy between host and device memory (`lock`
// held), or null after saying why: the device range must lie in one allocation, the host side
// must not be device memory.
void* host_device_copy(const char* call, CUdeviceptr device, const void* host, size_t bytes) {
    void* view = device_view(device, bytes);
    if (view == nullptr || allocation_of(reinterpret_cast<uintptr_t>(host), 1) != nullptr) {
        complain(std::string(call) + ": " + std::to_string(bytes) + " bytes at device address " + std::to_string(device)
                 + " are not in one device allocation, or the host side is device memory");
        return nullptr;
    }
    return view;
}

// Enters `object` in `table` under its address, which becomes its handle, and hands that out.
template <typename H, typename T>
CUresult hand_out(std::map<H, std::shared_ptr<T>>& table, std::shared_ptr<T> object, H* out) {
    std::lock_guard<std::mutex> g(lock);
    H handle = reinterpret_cast<H>(object.get());
    table[handle] = std::move(object);
    *out = handle;
    return CUDA_SUCCESS;
}

// Runs `op` in `stream`'s order (the NULL stream: now, on the caller).
CUresult submit(CUstream stream, std::function<void()> op) {
    if (stream == nullptr) {
        op();
        return CUDA_SUCCESS;
    }
    auto it = streams.find(stream);
    if (it == streams.end() || it->second->context != current) return CUDA_ERROR_INVALID_HANDLE;
    it->second->enqueue(std::move(op));
    return CUDA_SUCCESS;
}

CUresult copy_async(void* to, const void* from, size_t bytes, CUstream stream, bool snapshot) {
    if (snapshot) {  // pageable source: the driver takes the bytes before it returns
        auto copy = std::make_shared<std::vector<char>>(static_cast<const char*>(from), static_cast<const char*>(from) + bytes);
        return submit(stream, [to, copy] { std::memcpy(to, copy->data(), copy->size()); });
    }
    return submit(stream, [to, from, bytes] { std::memcpy(to, from, bytes); });
}

// The event behind `handle` (`lock` held) and how often it was recorded, counting this call
// when `record`; a null event for an unknown handle.
std::pair<std::shared_ptr<Event>, unsigned long> recorded(CUevent handle, bool record) {
    auto it = events.find(handle);
    if (it == events.end() || it->second->context != current) return {nullptr, 0};
    std::lock_guard<std::mutex> eg(it->second->m);
    return {it->second, record ? ++it->second->recorded : it->second->recorded};
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuGetErrorName(CUresult error, const char** name) {
    static const std::map<int, const char*> names = {
        {CUDA_SUCCESS, "CUDA_SUCCESS"},
        {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
        {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
        {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
        {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
        {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
        {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
        {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
        {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
        {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"},
        {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED"},
        {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"},
        {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
        {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
    };
    auto it = names.find(error);
    if (it == names.end()) return CUDA_ERROR_INVALID_VALUE;
    *name = it->second;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int flags) {
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard<std::mutex> g(lock);
    if (const char* n = std::getenv("PENSTOCK_HOSTCUDA_DEVICES")) device_count = std::max(1, std::min(8, std::atoi(n)));
    for (int i = 0; i < 8; i++) contexts[i].device = i;
    initialised = true;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
    if (CUresult r = enter(false)) return r;
    *count = device_count;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
    if (CUresult r = enter(false)) return r;
    if (ordinal < 0 || ordinal >= device_count) return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char* name, int length, CUdevice device) {
    if (CUresult r = enter(false)) return r;
    if (device < 0 || device >= device_count || length <= 0) return CUDA_ERROR_INVALID_VALUE;
    std::snprintf(name, length, "Penstock host emulation of CUDA, not a GPU");
    return CUDA_SUCCESS;
}

int capability_major = 9, capability_minor = 0;  // penstock_hostcuda_set_capability changes it
int driver_version = 13000;

CUresult CUDAAPI cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
    if (CUresult r = enter(false)) return r;
    if (device < 0 || device >= device_count) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard<std::mutex> g(lock);
    if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) *value = capability_major;
    else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) *value = capability_minor;
    else return CUDA_ERROR_INVALID_VALUE;  // only what Penstock asks is emulated
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int* version) {
    if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard<std::mutex> g(lock);
    *version = driver_version;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
    if (CUresult r = enter(false)) return r;
    if (device < 0 || device >= device_count) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard<std::mutex> g(lock);
    contexts[device].references++;
    *context = reinterpret_cast<CUcontext>(&contexts[device]);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice device) {
    if (CUresult r = enter(false)) return r;
    if (device < 0 || device >= device_count) return CUDA_ERROR_INVALID_DEVICE;
    std::lock_guard<std::mutex> g(lock);
    if (contexts[device].references == 0) return CUDA_ERROR_INVALID_CONTEXT;
    contexts[device].references--;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext context) {
    if (CUresult r = enter(false)) return r;
    auto* c = reinterpret_cast<Context*>(context);
    if (c != nullptr && (c < contexts || c >= contexts + 8)) return CUDA_ERROR_INVALID_CONTEXT;
    current = c;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
    if (CUresult r = enter()) return r;
    if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    size_t mapped = (bytes + page - 1) / page * page;
    int fd = memfd_create("hostcuda", 0);
    if (fd < 0 || ftruncate(fd, (off_t) mapped) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
    // the device view: unreadable, a guard page after it
    void* view = mmap(nullptr, mapped + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void* work = mmap(nullptr, mapped + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (view == MAP_FAILED || work == MAP_FAILED
        || mmap(work, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    close(fd);
    std::lock_guard<std::mutex> g(lock);
    device_memory[reinterpret_cast<uintptr_t>(view)] = Allocation{bytes, mapped + page, work, current};
    *pointer = reinterpret_cast<CUdeviceptr>(view);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr pointer) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto it = device_memory.find(pointer);
    if (it == device_memory.end()) return CUDA_ERROR_INVALID_VALUE;
    munmap(reinterpret_cast<void*>(it->first), it->second.mapped);
    munmap(it->second.work, it->second.mapped);
    device_memory.erase(it);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostAlloc(void** pointer, size_t bytes, unsigned int flags) {
    if (CUresult r = enter()) return r;
    if (bytes == 0 || (flags & ~0xfu) != 0) return CUDA_ERROR_INVALID_VALUE;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    std::lock_guard<std::mutex> g(lock);
    pinned_memory[reinterpret_cast<uintptr_t>(p)] = bytes;
    *pointer = p;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFreeHost(void* pointer) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto it = pinned_memory.find(reinterpret_cast<uintptr_t>(pointer));
    if (it == pinned_memory.end()) return CUDA_ERROR_INVALID_VALUE;
    munmap(pointer, it->second);
    pinned_memory.erase(it);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostRegister_v2(void* pointer, size_t bytes, unsigned int flags) {
    if (CUresult r = enter()) return r;
    if (pointer == nullptr || bytes == 0 || (flags & ~0xfu) != 0) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard<std::mutex> g(lock);
    auto a = reinterpret_cast<uintptr_t>(pointer);
    if (is_pinned(pointer, 1) || is_pinned(reinterpret_cast<void*>(a + bytes - 1), 1)) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    registered_memory[a] = bytes;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostUnregister(void* pointer) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    return registered_memory.erase(reinterpret_cast<uintptr_t>(pointer)) == 1 ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr to, const void* from, size_t bytes, CUstream stream) {
    if (CUresult r = enter()) return r;
    std::unique_lock<std::mutex> g(lock);
    void* dst = host_device_copy("cuMemcpyHtoDAsync", to, from, bytes);
    if (dst == nullptr) return CUDA_ERROR_INVALID_VALUE;
    bool pageable = !is_pinned(from, bytes);
    if (pageable) pageable_copies++;
    return copy_async(dst, from, bytes, stream, pageable);
}

CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void* to, CUdeviceptr from, size_t bytes, CUstream stream) {
    if (CUresult r = enter()) return r;
    std::unique_lock<std::mutex> g(lock);
    void* src = host_device_copy("cuMemcpyDtoHAsync", from, to, bytes);
    if (src == nullptr) return CUDA_ERROR_INVALID_VALUE;
    bool pageable = !is_pinned(to, bytes);
    if (!pageable) return copy_async(to, src, bytes, stream, false);
    // pageable target: the call returns when the copy is done
    pageable_copies++;
    auto done = std::make_shared<std::pair<std::mutex, std::condition_variable>>();
    auto flag = std::make_shared<bool>(false);
    CUresult r = submit(stream, [to, src, bytes, done, flag] {
        std::memcpy(to, src, bytes);
        std::lock_guard<std::mutex> d(done->first);
        *flag = true;
        done->second.notify_all();
    });
    g.unlock();
    if (r != CUDA_SUCCESS) return r;
    std::unique_lock<std::mutex> d(done->first);
    done->second.wait(d, [&] { return *flag; });
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes, CUstream stream) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    void* dst = device_view(to, bytes);
    void* src = device_view(from, bytes);
    if (dst == nullptr || src == nullptr) {
        complain("cuMemcpyDtoDAsync: " + std::to_string(bytes) + " bytes are not in device allocations");
        return CUDA_ERROR_INVALID_VALUE;
    }
    return copy_async(dst, src, bytes, stream, false);
}

CUresult CUDAAPI cuStreamCreate(CUstream* stream, unsigned int flags) {
    if (CUresult r = enter()) return r;
    if (flags != CU_STREAM_DEFAULT && flags != CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
    auto s = std::make_shared<Stream>();
    std::thread(Stream::run, s).detach();
    return hand_out(streams, s, stream);
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream stream) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto it = streams.find(stream);
    if (it == streams.end()) return CUDA_ERROR_INVALID_HANDLE;
    {  // its work still runs; the thread ends after it
        std::lock_guard<std::mutex> sg(it->second->m);
        it->second->destroyed = true;
        it->second->cv.notify_all();
    }
    streams.erase(it);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream stream) {
    if (CUresult r = enter()) return r;
    std::shared_ptr<Stream> s;
    {
        std::lock_guard<std::mutex> g(lock);
        auto it = streams.find(stream);
        if (it == streams.end()) return stream == nullptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
        s = it->second;
    }
    s->drain();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent* event, unsigned int flags) {
    if (CUresult r = enter()) return r;
    if ((flags & ~0xfu) != 0) return CUDA_ERROR_INVALID_VALUE;
    auto e = std::make_shared<Event>();
    e->timing = (flags & CU_EVENT_DISABLE_TIMING) == 0;
    return hand_out(events, e, event);
}

CUresult CUDAAPI cuEventRecord(CUevent event, CUstream stream) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto [e, target] = recorded(event, true);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    return submit(stream, [e, target] {
        std::lock_guard<std::mutex> eg(e->m);
        e->completed = std::max(e->completed, target);
        e->at = std::chrono::steady_clock::now();
        e->cv.notify_all();
    });
}

CUresult CUDAAPI cuEventQuery(CUevent event) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto it = events.find(event);
    if (it == events.end()) return CUDA_ERROR_INVALID_HANDLE;
    std::lock_guard<std::mutex> eg(it->second->m);
    return it->second->completed >= it->second->recorded ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult CUDAAPI cuEventSynchronize(CUevent event) {
    if (CUresult r = enter()) return r;
    std::shared_ptr<Event> e;
    {
        std::lock_guard<std::mutex> g(lock);
        auto it = events.find(event);
        if (it == events.end()) return CUDA_ERROR_INVALID_HANDLE;
        e = it->second;
    }
    std::unique_lock<std::mutex> eg(e->m);
    unsigned long target = e->recorded;
    e->cv.wait(eg, [&] { return e->completed >= target; });
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventElapsedTime_v2(float* milliseconds, CUevent start, CUevent end) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto s = events.find(start), e = events.find(end);
    if (s == events.end() || e == events.end()) return CUDA_ERROR_INVALID_HANDLE;
    if (start == end) {
        *milliseconds = 0;
        return CUDA_SUCCESS;
    }
    std::scoped_lock both(s->second->m, e->second->m);
    if (!s->second->timing || !e->second->timing || s->second->recorded == 0 || e->second->recorded == 0) return CUDA_ERROR_INVALID_HANDLE;
    if (s->second->completed < s->second->recorded || e->second->completed < e->second->recorded) return CUDA_ERROR_NOT_READY;
    *milliseconds = std::chrono::duration<float, std::milli>(e->second->at - s->second->at).count();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent event) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    return events.erase(event) == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
    if (CUresult r = enter()) return r;
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard<std::mutex> g(lock);
    auto [e, target] = recorded(event, false);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    return submit(stream, [e, target] {
        std::unique_lock<std::mutex> eg(e->m);
        e->cv.wait(eg, [&] { return e->completed >= target; });
    });
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream stream, CUhostFn fn, void* data) {
    if (CUresult r = enter()) return r;
    if (fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard<std::mutex> g(lock);
    host_functions++;
    return submit(stream, [fn, data] {
        in_host_function = true;
        fn(data);
        in_host_function = false;
    });
}

CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
    if (CUresult r = enter()) return r;
    std::string ptx(static_cast<const char*>(image));
    auto entries = parse_ptx(ptx);
    if (entries.empty()) {
        complain("cuModuleLoadData: the image is not PTX with entries");
        return CUDA_ERROR_INVALID_PTX;
    }
    // as the driver: PTX for a newer target than the device cannot be compiled for it
    auto target = ptx.find(".target sm_");
    if (target != std::string::npos) {
        int sm = std::atoi(ptx.c_str() + target + 11);
        int device_sm;
        {
            std::lock_guard<std::mutex> g(lock);
            device_sm = capability_major * 10 + capability_minor;
        }
        if (sm > device_sm) {
            complain("cuModuleLoadData: PTX for sm_" + std::to_string(sm) + " on a device of compute capability " + std::to_string(device_sm));
            return CUDA_ERROR_NO_BINARY_FOR_GPU;
        }
    }
    for (const auto& [name, sizes] : entries) {
        auto k = host_kernels().find(name);
        if (k != host_kernels().end() && k->second.sizes != sizes) {
            complain("cuModuleLoadData: the PTX parameters of " + name + " differ from the host kernel's");
            return CUDA_ERROR_INVALID_PTX;
        }
    }
    auto* m = new Module{current, entries, {}};
    std::lock_guard<std::mutex> g(lock);
    modules.insert(m);
    *module = reinterpret_cast<CUmodule>(m);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto* m = reinterpret_cast<Module*>(module);
    if (modules.count(m) == 0 || m->context != current) return CUDA_ERROR_INVALID_HANDLE;
    auto e = m->entries.find(name);
    if (e == m->entries.end()) return CUDA_ERROR_NOT_FOUND;
    auto k = host_kernels().find(name);
    if (k == host_kernels().end()) {
        complain(std::string("cuModuleGetFunction: ") + name + " has no host implementation");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    m->functions.push_back(std::make_unique<Function>(Function{m->context, name, e->second, &k->second}));
    Function* f = m->functions.back().get();
    functions.insert(f);
    *function = reinterpret_cast<CUfunction>(f);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction function, unsigned int gridX, unsigned int gridY, unsigned int gridZ, unsigned int blockX,
                                unsigned int blockY, unsigned int blockZ, unsigned int sharedBytes, CUstream stream, void** params,
                                void** extra) {
    if (CUresult r = enter()) return r;
    std::lock_guard<std::mutex> g(lock);
    auto* f = reinterpret_cast<Function*>(function);
    if (functions.count(f) == 0) return CUDA_ERROR_INVALID_HANDLE;
    if (f->context != current) return CUDA_ERROR_INVALID_CONTEXT;
    if (gridX == 0 || gridY == 0 || gridZ != 1 || blockX == 0 || blockX > 1024 || blockY != 1 || blockZ != 1
        || sharedBytes > sizeof(shared_memory) || extra != nullptr || (params == nullptr && !f->sizes.empty())) {
        complain("cuLaunchKernel " + f->name + ": launch configuration not supported by the host emulation");
        return CUDA_ERROR_INVALID_VALUE;
    }
    std::vector<std::vector<char>> args;
    for (size_t i = 0; i < f->sizes.size(); i++) {  // copied now, by the PTX's sizes, as the driver does
        const char* p = static_cast<const char*>(params[i]);
        args.emplace_back(p, p + f->sizes[i]);
    }
    std::string why;
    auto body = f->kernel->bind(args, why);
    if (!body) {
        complain("cuLaunchKernel " + f->name + ": " + why);
        return CUDA_ERROR_INVALID_VALUE;
    }
    launches++;
    bool syncs = f->kernel->syncs;
    return submit(stream, [gridX, gridY, blockX, syncs, body] { launch_grid(gridX, gridY, blockX, syncs, body); });
}

// Not CUDA: what the emulation holds now, for tests (device allocations, pinned allocations and registrations,
// streams, events, then counts of kernel launches, host functions and pageable copies so far).
void penstock_hostcuda_counts(long* out) {
    std::lock_guard<std::mutex> g(lock);
    out[0] = (long) device_memory.size();
    out[1] = (long) (pinned_memory.size() + registered_memory.size());
    out[2] = (long) streams.size();
    out[3] = (long) events.size();
    out[4] = launches;
    out[5] = host_functions;
    out[6] = pageable_copies;
}

// Not CUDA: the seed of the shuffled block order of every launch from now on (host_cuda.h).
void penstock_hostcuda_set_block_seed(unsigned long long seed) {
    block_order_seed = seed;
    block_order_launches = 0;
}

// Not CUDA: the compute capability and driver version the emulated devices report (tests of
// the refusal of an older GPU or driver).
void penstock_hostcuda_set_capability(int major, int minor, int version) {
    std::lock_guard<std::mutex> g(lock);
    capability_major = major;
    capability_minor = minor;
    driver_version = version;
}

}  // extern "C"
