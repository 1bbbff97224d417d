// default_complex.hpp
// Grid Engine 6.2's default complex (source/dist/util/resources/centry/*): the
// attributes every cluster has after installation. A snapshot without a
// `begin complex` block uses these rows.
#pragma once

namespace schedk::io {

inline constexpr const char* kDefaultComplex[] = {
    "arch              a          RESTRING  ==   YES  NO   NONE   0",
    "calendar          c          RESTRING  ==   YES  NO   NONE   0",
    "cpu               cpu        DOUBLE    >=   YES  NO   0      0",
    "display_win_gui   dwg        BOOL      ==   YES  NO   0      0",
    "h_core            h_core     MEMORY    <=   YES  NO   0      0",
    "h_cpu             h_cpu      TIME      <=   YES  NO   0:0:0  0",
    "h_data            h_data     MEMORY    <=   YES  NO   0      0",
    "h_fsize           h_fsize    MEMORY    <=   YES  NO   0      0",
    "h_rss             h_rss      MEMORY    <=   YES  NO   0      0",
    "h_rt              h_rt       TIME      <=   YES  NO   0:0:0  0",
    "h_stack           h_stack    MEMORY    <=   YES  NO   0      0",
    "h_vmem            h_vmem     MEMORY    <=   YES  NO   0      0",
    "hostname          h          HOST      ==   YES  NO   NONE   0",
    "load_avg          la         DOUBLE    >=   NO   NO   0      0",
    "load_long         ll         DOUBLE    >=   NO   NO   0      0",
    "load_medium       lm         DOUBLE    >=   NO   NO   0      0",
    "load_short        ls         DOUBLE    >=   NO   NO   0      0",
    "m_core            core       INT       <=   YES  NO   0      0",
    "m_socket          socket     INT       <=   YES  NO   0      0",
    "m_thread          thread     INT       <=   YES  NO   0      0",
    "m_topology        topo       RESTRING  ==   YES  NO   NONE   0",
    "m_topology_inuse  utopo      RESTRING  ==   YES  NO   NONE   0",
    "mem_free          mf         MEMORY    <=   YES  NO   0      0",
    "mem_total         mt         MEMORY    <=   YES  NO   0      0",
    "mem_used          mu         MEMORY    >=   YES  NO   0      0",
    "min_cpu_interval  mci        TIME      <=   NO   NO   0:0:0  0",
    "np_load_avg       nla        DOUBLE    >=   NO   NO   0      0",
    "np_load_long      nll        DOUBLE    >=   NO   NO   0      0",
    "np_load_medium    nlm        DOUBLE    >=   NO   NO   0      0",
    "np_load_short     nls        DOUBLE    >=   NO   NO   0      0",
    "num_proc          p          INT       ==   YES  NO   0      0",
    "qname             q          RESTRING  ==   YES  NO   NONE   0",
    "rerun             re         BOOL      ==   NO   NO   0      0",
    "s_core            s_core     MEMORY    <=   YES  NO   0      0",
    "s_cpu             s_cpu      TIME      <=   YES  NO   0:0:0  0",
    "s_data            s_data     MEMORY    <=   YES  NO   0      0",
    "s_fsize           s_fsize    MEMORY    <=   YES  NO   0      0",
    "s_rss             s_rss      MEMORY    <=   YES  NO   0      0",
    "s_rt              s_rt       TIME      <=   YES  NO   0:0:0  0",
    "s_stack           s_stack    MEMORY    <=   YES  NO   0      0",
    "s_vmem            s_vmem     MEMORY    <=   YES  NO   0      0",
    "seq_no            seq        INT       ==   NO   NO   0      0",
    "slots             s          INT       <=   YES  YES  1      1000",
    "swap_free         sf         MEMORY    <=   YES  NO   0      0",
    "swap_rate         sr         MEMORY    >=   YES  NO   0      0",
    "swap_rsvd         srsv       MEMORY    >=   YES  NO   0      0",
    "swap_total        st         MEMORY    <=   YES  NO   0      0",
    "swap_used         su         MEMORY    >=   YES  NO   0      0",
    "tmpdir            tmp        RESTRING  ==   NO   NO   NONE   0",
    "virtual_free      vf         MEMORY    <=   YES  NO   0      0",
    "virtual_total     vt         MEMORY    <=   YES  NO   0      0",
    "virtual_used      vu         MEMORY    >=   YES  NO   0      0",
};

}  // namespace schedk::io
