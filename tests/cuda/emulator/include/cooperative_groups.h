// Thread-block clusters of cooperative groups for the CPU emulation.
#pragma once

#include "cuda_runtime.h"

namespace cooperative_groups {

class cluster_group {
 public:
  unsigned block_rank() const { return static_cast<unsigned>(::cuda_emulator::ClusterRank()); }
  unsigned num_blocks() const { return static_cast<unsigned>(::cuda_emulator::ClusterSize()); }
  void sync() const { ::cuda_emulator::SyncCluster(); }
  template <typename T>
  T* map_shared_rank(T* p, unsigned rank) const {
    return static_cast<T*>(::cuda_emulator::MapSharedRank(p, rank));
  }
};

inline cluster_group this_cluster() { return {}; }

}  // namespace cooperative_groups
