# cmdfuzz.tcl -- no command may crash, hang, desynchronise or (when it cannot
# write) modify the server. Every command and subcommand that COMMAND LIST
# names is sent a few hundred argument lists: random ones drawn from hostile
# values, option keywords and the key names of a dataset that holds every
# type in every encoding, and mutated well-formed calls (::examples). The
# blocking commands run with short timeouts while a second client writes;
# then a mixed stream of all commands, some inside WATCH/MULTI/EXEC, runs on
# a dataset that is not reset as often. A MONITOR, a PSUBSCRIBE * and a BCAST
# tracking client watch everything. Batches are sent in one of several
# modes (see batch_mode: through Lua, under client tracking, NO-EVICT,
# maxmemory, or to a read-only replica that follows the server all along).
# Every write goes through the AOF. At the end the replica must hold the
# server's dataset, the servers must shut down cleanly, without
# AddressSanitizer, LeakSanitizer or UBSan reports in their output (they only
# appear with the SANITIZE=1 build), and the dataset must load back from the
# AOF.
#
# The run is reproducible: a PRNG of our own, seeded per command from
# CAIRN_FUZZ_SEED (default 1), so adding a command does not change what the
# others receive. CAIRN_FUZZ_ROUNDS (default 200) is the number of calls per
# command, CAIRN_FUZZ_ONLY a glob restricting the commands fuzzed; `make
# fuzz-commands` sets a random seed and many more rounds. A failure names the
# first call (or transaction) that fails on its own, and saves what ran since
# the last reseed in $CAIRN_TMP/failed-N.tcl; CAIRN_FUZZ_REPLAY=that-file
# runs it again as it was sent.
#
# Excluded commands, and why (a name matches a command or container|sub):
#   blocking flag (BLPOP, BRPOP, BLMOVE, BZPOPMIN, XREAD, ...): they block
#       until their timeout; the mixed stream still runs them inside MULTI,
#       where they cannot block
#   wait            blocks until its timeout without replicas, not flagged blocking
#   shutdown        ends the server
#   quit            closes the fuzzing connection
#   monitor         turns the connection into a MONITOR feed
#   subscribe, psubscribe, ssubscribe
#                   RESP2 subscribed mode refuses the commands that follow
#   multi exec discard watch unwatch
#                   not fuzzed alone: the mixed stream wraps random commands in
#                   WATCH/MULTI/EXEC/DISCARD
#   client|kill     can kill the fuzzing connection (TYPE normal, ID, SKIPME no)
#   client|pause    pauses every client: the next requests would hang
#   client|reply    OFF and SKIP suppress the replies the fuzzer waits for
#   debug           only with the harmless subcommands in ::debug_subs (no
#                   SLEEP, RELOAD, POPULATE, PANIC, SET-ACTIVE-EXPIRE, ...)
#   config|set      only on the parameters in ::config_params (restored after
#                   each batch): others change ports, dir, memory limits
# Present only on redis-server (listed so the file runs against it too):
#   replicaof slaveof failover sync psync replconf
#                   make the server a replica, the connection a replication
#                   link, or (REPLCONF ACK) get no reply
#   migrate         connects to other hosts and blocks up to its timeout
#   module|load module|loadex module|unload   load shared objects
#   acl|setuser acl|deluser acl|load          can disable the default user
#   script|debug    SYNC blocks the server in a Lua debugging session
# Other restrictions: SRANDMEMBER, ZRANDMEMBER and HRANDFIELD never get a
# negative count below -1000 (a count of -LONG_MAX makes any server build a
# reply of 2^63 elements); the server runs with proto-max-bulk-len 1mb so
# SETRANGE/SETBIT/BITFIELD/APPEND/LCS stay small; the unsubscribe commands,
# whose reply count depends on their arguments, stay out of MULTI and of the
# mixed stream.
#
# Intentional differences from redis-server: none. The commands differ (cairn
# has no streams), so the call count differs too.

source [file join [file dirname [info script]] .. helpers harness.tcl]

proc envnum {name default} {
    set v [::cairn_h::envget $name $default]
    if {![string is entier -strict $v]} { error "$name must be an integer, not '$v'" }
    return $v
}
set ::base_seed [envnum CAIRN_FUZZ_SEED 1]
set ::rounds [envnum CAIRN_FUZZ_ROUNDS 200]
set ::only [::cairn_h::envget CAIRN_FUZZ_ONLY *]
set ::batch 64
set ::ncalls 0
set ::nfailed 0
set ::resp3 0
puts "# cmdfuzz: CAIRN_FUZZ_SEED=$::base_seed CAIRN_FUZZ_ROUNDS=$::rounds"

# (WAITAOF has no blocking flag, as in Redis 7.2, but WAITAOF 0 1 0 waits
# forever for replicas.)
set ::excluded {
    wait waitaof shutdown quit monitor subscribe psubscribe ssubscribe
    multi exec discard watch unwatch client|kill client|pause client|reply
    replicaof slaveof failover sync psync replconf migrate
    module|load module|loadex module|unload acl|setuser acl|deluser acl|load
    script|debug
}
# Commands that answer slowly or with very large replies (the whole command
# table, HyperLogLog self tests) get fewer calls.
set ::few_rounds {command command|docs command|info pfselftest}
set ::debug_subs {HELP OBJECT DIGEST DIGEST-VALUE PROTOCOL HTSTATS LOG ERROR LOOKUPS}
set ::config_params {
    hash-max-listpack-entries hash-max-listpack-value list-max-listpack-size
    list-compress-depth set-max-intset-entries zset-max-listpack-entries
    zset-max-listpack-value hll-sparse-max-bytes slowlog-log-slower-than
    slowlog-max-len lazyfree-lazy-user-del lazyfree-lazy-user-flush
    lazyfree-lazy-server-del maxmemory-policy
}
# Every write also goes through the AOF: at the end the server restarts from
# it and must hold the same dataset.
set ::server_config {proto-max-bulk-len 1mb list-compress-depth 1 notify-keyspace-events KEA
    appendonly yes}
set ::mode plain
set ::mode_batches {}

# ---------------------------------------------------------------------------
# PRNG and argument pools
# ---------------------------------------------------------------------------

# A 31-bit LCG of our own: the sequence depends only on the seed, not on Tcl's
# rand() (which the harness seeds from the pid).
set ::rs 1
proc seed_for {name} {
    set ::rs [expr {(([zlib crc32 $name] ^ $::base_seed * 2654435761) & 0x7fffffff) | 1}]
}
proc rnd {n} {
    set ::rs [expr {($::rs * 1103515245 + 12345) & 0x7fffffff}]
    return [expr {($::rs >> 4) % $n}]
}
proc pick {l} { return [lindex $l [rnd [llength $l]]] }

# The argument pools and the examples live in helpers/cmdfuzz_pools.tcl.
source [file join [file dirname [info script]] .. helpers cmdfuzz_pools.tcl]

# ---------------------------------------------------------------------------
# The dataset: every type in every encoding Redis 7.0 has
# ---------------------------------------------------------------------------

# Lists are quicklists in 7.0 whatever their size: l:lp is one listpack node,
# l:ql several (the inner ones LZF-compressed, list-compress-depth 1), l:plain
# has a plain node (elements of 32 KiB and more, see setup_server).

set ::enc {
    s:int int s:big int s:embstr embstr s:float embstr s:raw raw
    l:lp quicklist l:ql quicklist l:plain quicklist
    h:lp listpack h:ht hashtable set:int intset set:int64 intset set:ht hashtable
    z:lp listpack z:sl skiplist hll:sparse raw hll:dense raw bm raw
    s:ttl embstr h:ttl listpack z:ttl listpack {} embstr
}
set ::keys [concat [dict keys $::enc] [list missing "{tag}x" db1:s db1:l]]

proc seed_commands {} {
    set cmds {{FLUSHALL} {SELECT 0}}
    lappend cmds {SET s:int 12345} {SET s:big 9223372036854775807} \
        {SET s:embstr hello} {SET s:float 3.5} [list SET s:raw [string repeat r 100]] \
        {RPUSH l:lp a b c 1 2 3 -5 {} x}
    set l {RPUSH l:ql}
    for {set i 0} {$i < 300} {incr i} { lappend l [format %03d%s $i [string repeat q 97]] }
    lappend cmds $l [list RPUSH l:plain a b $::big c 1 [string repeat p 5000] d]
    lappend cmds {HSET h:lp f1 v1 f2 2 f3 -3 num 10 flt 1.5 {} empty}
    set h {HSET h:ht}
    for {set i 0} {$i < 600} {incr i} { lappend h f$i $i }
    lappend cmds $h {SADD set:int 1 2 3 -5 100} \
        {SADD set:int64 9223372036854775807 -9223372036854775808 0} \
        {SADD set:ht a b c 1 m1 {}} \
        {ZADD z:lp 1 a 2 b 3 c 1.5 d -inf ninf +inf pinf 0 {}}
    set z {ZADD z:sl}
    for {set i 0} {$i < 200} {incr i} { lappend z $i m$i }
    lappend cmds $z {PFADD hll:sparse a b c d} [list SET hll:dense $::dense_hll] \
        {SETBIT bm 0 1} {SETBIT bm 7 1} {SETBIT bm 100 1} {SETBIT bm 1000 1} \
        {SET s:ttl v EX 100000} {HSET h:ttl a 1 b 2} {EXPIRE h:ttl 100000} \
        {ZADD z:ttl 1 a} {PEXPIRE z:ttl 100000000} {SET {} empty-name} \
        {SELECT 1} {SET db1:s x} {RPUSH db1:l a b} {SELECT 0}
    lappend cmds [list FUNCTION LOAD REPLACE $::fz_library]
    return $cmds
}

# The library the FCALL and FCALL_RO modes call (see batch_mode); the
# FUNCTION commands may delete it, each reseed loads it again.
set ::fz_library "#!lua name=cmdfuzz
redis.register_function('fz', function(keys, args) return redis.pcall(unpack(args)) end)
redis.register_function{function_name='fz_ro', flags={'no-writes'},
    callback=function(keys, args) return redis.pcall(unpack(args)) end}"
set ::fz_script {return redis.pcall(unpack(ARGV))}
set ::fz_script3 {redis.setresp(3) return redis.pcall(unpack(ARGV))}

# The dense HyperLogLog is built once and then restored with SET, which is
# much cheaper than thousands of PFADDs per reseed.
proc build_dense_hll {c} {
    r $c DEL hll:dense
    set l {PFADD hll:dense}
    for {set i 0} {$i < 5000} {incr i} { lappend l e$i }
    r $c {*}$l
    assert_equal dense [r $c PFDEBUG ENCODING hll:dense]
    set ::dense_hll [r $c GET hll:dense]
}

# DUMP payloads of the dataset's values, for RESTORE.
proc dump_payloads {c} {
    set ::payloads {}
    if {![dict exists $::cmds dump]} return
    foreach k [dict keys $::enc] { lappend ::payloads [r $c DUMP $k] }
}

proc reseed {c} {
    set out ""
    set cmds [seed_commands]
    foreach cmd $cmds { append out [::cairn_h::encode $cmd] }
    send_raw $c $out
    foreach cmd $cmds { read_reply $c }
    set ::dirty 0
}

# ---------------------------------------------------------------------------
# Server, command table
# ---------------------------------------------------------------------------

proc setup_server {} {
    set ::srv [start_server -config $::server_config]
    set ::c [client $::srv -timeout 30000]
    set ::c_id [r $::c CLIENT ID]
    set ::w [client $::srv -timeout 30000]
    start_observers
    start_replica
    # Elements of 32 KiB and more become plain quicklist nodes, so the 64 KiB
    # argument makes plain nodes and the 5000-byte one listpack entries with
    # a 32-bit length.
    r $::c DEBUG QUICKLIST-PACKED-THRESHOLD 32k
    set ::config_defaults {}
    foreach p $::config_params {
        lappend ::config_defaults {*}[r $::c CONFIG GET $p]
    }
    set ::dirty 1
}

# Observers: a MONITOR, a PSUBSCRIBE * (keyspace events are on) and a
# RESP3 client tracking every key, so each fuzzed call also goes through
# MONITOR formatting, keyspace notifications and tracking invalidation.
# What they receive is only drained, not checked.
proc start_observers {} {
    set m [client $::srv]
    assert_equal OK [r $m MONITOR]
    set p [client $::srv]
    r $p PSUBSCRIBE *
    set t [client $::srv -resp 3]
    assert_equal OK [r $t CLIENT TRACKING ON BCAST]
    set ::observers [list $m $p $t]
}

# A read-only replica follows the fuzzed server the whole run: the
# "replica" mode sends batches to it (every write must be refused), and at
# the end its DEBUG DIGEST must equal the primary's.
proc start_replica {} {
    if {[info exists ::replica] && [server_alive $::replica]} { kill_server $::replica }
    set ::replica [start_server -config [list replicaof "127.0.0.1 [dict get $::srv port]" \
            proto-max-bulk-len 1mb]]
    set ::rc [client $::replica -timeout 30000]
    # The REDIRECT target of the tracking modes: a RESP2 client subscribed to
    # the invalidation channel.
    set ::redir [client $::srv]
    set ::redir_id [r $::redir CLIENT ID]
    r $::redir SUBSCRIBE __redis__:invalidate
    lappend ::observers $::redir
}

proc replica_synced {} {
    set off [info_field $::c master_repl_offset replication]
    set info [r $::rc INFO replication]
    return [expr {[string match "*master_link_status:up*" $info] &&
        [regexp {slave_repl_offset:(\d+)} $info - roff] && $roff == $off}]
}

# "" when the replica caught up and holds the primary's dataset.
proc replica_diff {} {
    if {[catch {wait_for {[replica_synced]} 20000} err]} { return "the replica does not catch up: $err" }
    set a [digest]
    set b [r $::rc DEBUG DIGEST]
    if {$a ne $b} { return "replica DEBUG DIGEST $b, primary $a" }
    return ""
}

proc drain_observers {} {
    foreach o $::observers {
        fconfigure $o -blocking 0
        if {[catch {read $o}] || [eof $o]} { error "an observer connection was closed" }
    }
}

proc restore_config {} {
    r $::c CONFIG SET {*}$::config_defaults maxmemory 0
}

proc load_commands {} {
    set names [lsort [r $::c COMMAND LIST]]
    set infos [r $::c COMMAND INFO {*}$names]
    set ::cmds {}
    foreach name $names info $infos {
        if {$info eq ""} continue
        lassign $info - arity flags first last step - - specs subs
        set kflags {}
        foreach spec $specs {
            if {[llength $spec] % 2 == 0 && [dict exists $spec flags]} {
                lappend kflags {*}[dict get $spec flags]
            }
        }
        set subnames {}
        foreach s $subs { lappend subnames [lindex [split [lindex $s 0] |] 1] }
        dict set ::cmds $name [dict create arity $arity flags $flags first $first \
                last $last step $step kflags $kflags subs $subnames]
    }
}

# Why a command is not fuzzed on its own, or "".
proc exclusion {name} {
    if {$name in $::excluded} { return "excluded" }
    if {"blocking" in [dict get $::cmds $name flags]} { return "blocking" }
    return ""
}

# Can the command change the dataset? Commands that cannot (no write or
# may_replicate flag, no key spec that writes) must leave DEBUG DIGEST alone.
# PFCOUNT is readonly but updates the cached cardinality: its key spec is RW.
# Their batches start from a fresh dataset whose TTLs are 100000 s, so
# expiry (active expiry stays on: it is exercised too) cannot change it.
proc may_write {name} {
    set i [dict get $::cmds $name]
    if {[lsearch -regexp [dict get $i flags] {^(write|may_replicate)$}] >= 0} { return 1 }
    if {[lsearch -regexp [dict get $i kflags] {^(RW|OW|RM)$}] >= 0} { return 1 }
    return [expr {$name in {flushall flushdb swapdb}}]
}

# The name the server resolves argv to: COMMAND or command|sub.
proc resolved {argv} {
    set n [string tolower [lindex $argv 0]]
    if {[dict exists $::cmds $n] && [llength [dict get $::cmds $n subs]] && [llength $argv] > 1} {
        set s $n|[string tolower [lindex $argv 1]]
        if {[dict exists $::cmds $s]} { return $s }
    }
    return $n
}

# ---------------------------------------------------------------------------
# Argument generation
# ---------------------------------------------------------------------------

proc gen_arg {} {
    switch [rnd 12] {
        0 - 1 { return [pick $::keys] }
        2 - 3 { return [pick $::keywords] }
        4 - 5 { return [pick $::numbers] }
        6 { return [pick $::floats] }
        7 { return [pick $::hostile] }
        8 { return [pick $::members] }
        9 { return [rnd 20] }
        10 {
            set b {}
            for {set i [rnd 12]} {$i > 0} {incr i -1} { lappend b [rnd 256] }
            return [binary format c* $b]
        }
        11 { return [expr {[rnd 2] ? "-" : ""}][rnd 100000]}
    }
}

# Number of arguments after the command name(s): half the time one the arity
# allows, else anything from 0 to 8.
proc gen_nargs {arity names} {
    if {[rnd 2]} { return [rnd 9] }
    set min [expr {abs($arity) - $names}]
    if {$min < 0} { set min 0 }
    if {$arity < 0} { return [expr {$min + [rnd 5]}] }
    return $min
}

proc gen_argv {name} {
    set i [dict get $::cmds $name]
    set parts [split $name |]
    set argv [list [string toupper [lindex $parts 0]]]
    if {[llength $parts] == 2} { lappend argv [string toupper [lindex $parts 1]] }
    set n [gen_nargs [dict get $i arity] [llength $argv]]
    set first [dict get $i first]
    set last [dict get $i last]
    set step [dict get $i step]
    set argc [expr {[llength $argv] + $n}]
    if {$last < 0} { set last [expr {$argc + $last}] }
    if {$step < 1} { set step 1 }
    # A container gets one of its subcommands half the time (the excluded
    # ones are filtered out below).
    if {[llength $parts] == 1 && [llength [dict get $i subs]] && $n > 0 && [rnd 2]} {
        lappend argv [string toupper [pick [dict get $i subs]]]
        incr n -1
    }
    if {$name eq "debug" && $n > 0} {
        lappend argv [pick $::debug_subs]
        incr n -1
    }
    for {set j 0} {$j < $n} {incr j} {
        set pos [llength $argv]
        if {$first > 0 && $pos >= $first && $pos <= $last && ($pos - $first) % $step == 0
                && [rnd 10] < 8} {
            lappend argv [pick $::keys]
        } else {
            lappend argv [gen_arg]
        }
    }
    if {$name in {restore restore-asking} && [llength $argv] > 3 && [llength $::payloads] && [rnd 10] < 7} {
        lset argv 3 [pick $::payloads]
    }
    if {$name eq "config|set"} {
        set argv {CONFIG SET}
        for {set j [expr {1 + [rnd 3]}]} {$j > 0} {incr j -1} {
            lappend argv [pick $::config_params] [if {[rnd 2]} gen_arg {pick $::numbers}]
        }
    }
    return [tame $argv]
}

# Keeps argv inside what any server can answer (see the top of the file).
proc tame {argv} {
    set n [string tolower [lindex $argv 0]]
    if {$n in {srandmember zrandmember hrandfield}} {
        set out {}
        foreach a $argv {
            if {[string is entier -strict $a] && $a < -1000 && $a >= -9223372036854775807} {
                set a -1000
            }
            lappend out $a
        }
        return $out
    }
    return $argv
}

# A call that may run alone: not excluded and (for debug) whitelisted.
# Inside MULTI (intx 1) blocking commands are allowed, and RESET (which
# would end the transaction early and let a blocking command block) and the
# unsubscribe commands (which would add replies to EXEC's array) are not.
proc allowed {argv {intx 0}} {
    set r [resolved $argv]
    if {![dict exists $::cmds $r]} { return 1 }
    set why [exclusion $r]
    if {$intx && ($why eq "blocking" || $r in {reset unsubscribe punsubscribe sunsubscribe})} {
        return [expr {$why eq "blocking"}]
    }
    if {$why ne ""} { return 0 }
    if {$r eq "debug"} {
        return [expr {[llength $argv] > 1 && [string toupper [lindex $argv 1]] in $::debug_subs}]
    }
    if {$r eq "config|set"} {
        foreach {p v} [lrange $argv 2 end] {
            if {[string tolower $p] ni $::config_params} { return 0 }
        }
    }
    return 1
}

# The examples by command (resolved name).
proc index_examples {} {
    set ::by_cmd [dict create]
    foreach ex $::examples {
        set r [resolved $ex]
        if {[dict exists $::cmds $r]} { dict lappend ::by_cmd $r $ex }
    }
}

# An example with one to three mutations, or none.
proc mutate {argv} {
    set fixed [expr {[llength [split [resolved $argv] |]]}]
    for {set m [rnd 4]} {$m > 0} {incr m -1} {
        set n [llength $argv]
        set i [expr {$fixed + [rnd [expr {max(1, $n - $fixed + 1)}]]}]
        switch [rnd 5] {
            0 - 1 { if {$i < $n} { lset argv $i [gen_arg] } }
            2 { if {$i < $n} { set argv [lreplace $argv $i $i] } }
            3 { if {$i < $n} { set argv [linsert $argv $i [lindex $argv $i]] } }
            4 { set argv [linsert $argv $i [if {[rnd 2]} {pick $::keywords} gen_arg]] }
        }
    }
    return $argv
}

proc gen_call {name {intx 0}} {
    while {1} {
        if {[dict exists $::by_cmd $name] && [rnd 2]} {
            set argv [tame [mutate [pick [dict get $::by_cmd $name]]]]
        } else {
            set argv [gen_argv $name]
        }
        if {[allowed $argv $intx]} { return $argv }
    }
}

# ---------------------------------------------------------------------------
# Running calls
# ---------------------------------------------------------------------------

proc show_arg {a} {
    if {[string length $a] > 40} {
        set a "<[string length $a] bytes: [string range $a 0 15]...>"
    }
    set m {\r \\r \n \\n \t \\t \0 \\0}
    set s [string map $m $a]
    regsub -all {[\x01-\x08\x0b\x0c\x0e-\x1f\x7f-\xff]} $s {?} s
    if {$s eq "" || [string first " " $s] >= 0} { set s "\"$s\"" }
    return $s
}
proc show_argv {argv} { return [join [lmap a $argv {show_arg $a}] " "] }

# How many replies a call gets: one, except the unsubscribe commands outside
# subscribed mode, which answer once per channel named.
proc nreplies {argv} {
    if {[string tolower [lindex $argv 0]] in {unsubscribe punsubscribe sunsubscribe}} {
        # In RESP3 they are pushes, which the reader sets aside.
        if {$::resp3} { return 0 }
        return [expr {max(1, [llength $argv] - 1)}]
    }
    return 1
}

# How a batch is sent, as real clients do (::mode, chosen per batch by
# batch_mode): plain; through Lua (EVAL/EVAL_RO of redis.pcall(unpack(ARGV)),
# in RESP3 batches sometimes after redis.setresp(3); FCALL/FCALL_RO of the
# cmdfuzz library); after CLIENT TRACKING ON with OPTIN (and CLIENT CACHING
# calls in between), OPTOUT, BCAST, PREFIX, NOLOOP or REDIRECT; with CLIENT
# NO-EVICT (and NO-TOUCH where it exists) on; under a maxmemory a little
# above or below the memory in use with a random eviction policy; or on the
# read-only replica.
set ::modes {plain plain plain plain plain plain eval eval_ro fcall fcall_ro
    tracking tracking noevict maxmemory replica replica}
set ::policies {noeviction allkeys-lru allkeys-lfu allkeys-random volatile-lru
    volatile-lfu volatile-random volatile-ttl}
# A batch's mode depends on the seed, the command and the batch, not on rnd,
# so the calls a seed generates are the same in every mode.
proc batch_mode {what} {
    return [lindex $::modes [expr {[zlib crc32 "$::base_seed $what"] % [llength $::modes]}]]
}

# The calls of a batch as the mode sends them, and the commands around them.
proc mode_wrap {calls} {
    set h [zlib crc32 "$::base_seed [llength $calls] [lindex $calls 0]"]
    set pre {}
    set post {}
    switch $::mode {
        eval - eval_ro {
            set cmd [expr {$::mode eq "eval" ? "EVAL" : "EVAL_RO"}]
            set body [expr {$::resp3 && $h % 2 ? $::fz_script3 : $::fz_script}]
            set calls [lmap a $calls {list $cmd $body 0 {*}$a}]
        }
        fcall - fcall_ro {
            set cmd [expr {$::mode eq "fcall" ? "FCALL fz" : "FCALL_RO fz_ro"}]
            set calls [lmap a $calls {list {*}$cmd 0 {*}$a}]
        }
        tracking {
            set opts [lindex {{} OPTIN OPTOUT BCAST {BCAST PREFIX s: PREFIX l}
                NOLOOP REDIRECT {REDIRECT BCAST} {REDIRECT OPTIN}} [expr {$h % 9}]]
            set opts [string map [list REDIRECT "REDIRECT $::redir_id"] $opts]
            lappend pre [list CLIENT TRACKING ON {*}$opts]
            if {"OPTIN" in $opts || "OPTOUT" in $opts} {
                set yes [expr {"OPTIN" in $opts ? "yes" : "no"}]
                set out {}
                set i 0
                foreach a $calls {
                    if {[incr i] % 3 == 0} { lappend out [list CLIENT CACHING $yes] }
                    lappend out $a
                }
                set calls $out
            }
        }
        noevict {
            lappend pre {CLIENT NO-EVICT on}
            if {[dict exists $::cmds client|no-touch]} { lappend pre {CLIENT NO-TOUCH on} }
        }
        maxmemory {
            set used [info_field $::c used_memory memory]
            set max [expr {max(1, $used + ($h % 400000) - 100000)}]
            lappend pre [list CONFIG SET maxmemory-policy [lindex $::policies [expr {$h % 8}]] \
                    maxmemory $max]
            lappend post {CONFIG SET maxmemory 0}
        }
    }
    return [list $pre $calls $post]
}

# Sends the calls in one pipeline followed by RESET (which undoes SELECT,
# HELLO 3, CLIENT TRACKING, CLIENT NO-EVICT, MULTI...) and PING, and reads
# every reply. Returns "" or what went wrong. Error replies are fine.
proc run_pipeline {calls} {
    set out ""
    set want 0
    if {$::resp3} {
        set out [::cairn_h::encode {HELLO 3}]
        incr want
    }
    incr ::ncalls [llength $calls]
    lassign [mode_wrap $calls] pre calls post
    foreach argv [concat $pre $calls $post] {
        append out [::cairn_h::encode $argv]
        incr want [nreplies $argv]
    }
    append out [::cairn_h::encode RESET] [::cairn_h::encode PING]
    set c [expr {$::mode eq "replica" ? $::rc : $::c}]
    if {[catch {send_raw $c $out} err]} { return $err }
    for {set i 0} {$i < $want + 2} {incr i} {
        if {[catch {read_reply $c} res opts]} {
            if {[lrange [dict get $opts -errorcode] 0 1] ne {CAIRN REPLY}} {
                return "reply [expr {$i + 1}] of [expr {$want + 2}]: $res"
            }
        }
        if {$i == $want && $res ne "RESET"} {
            return "reply count mismatch: [expr {$want + 1}]th reply is '[::cairn_h::show $res]', not RESET"
        }
    }
    if {$res ne "PONG"} { return "PING after the batch got '[::cairn_h::show $res]'" }
    # Invalidation pushes of the tracking mode.
    set ::cairn_h::push($c) {}
    if {[catch drain_observers err]} { return $err }
    return ""
}

proc close_all {} {
    foreach o [list $::c $::w $::rc {*}$::observers] { close_client $o }
}

proc digest {} { return [r $::c DEBUG DIGEST] }

# What a live server says about a failed batch: whether it still answers on
# a new connection (a hang is then a lost reply, not a busy server) and what
# the fuzzing connection is doing.
proc probe {} {
    if {![server_alive $::srv]} {
        return "server died; its output:\n[::cairn_h::tail_file [file join [dict get $::srv dir] stdout] 25]"
    }
    if {[catch {
        set x [client $::srv -timeout 5000]
        r $x PING
        set line [lsearch -inline [split [r $x CLIENT LIST] \n] "id=$::c_id *"]
        close_client $x
    } err]} {
        return "server alive but not answering a new connection: $err"
    }
    return "server answers a new connection; the fuzzing client: $line"
}

# After a failed batch: restart the server and replay, one unit (a call, or
# a transaction) per pipeline from a fresh dataset, what ran since the last
# reseed, to name the first unit that fails. Returns the message.
proc diagnose {units problem {history {}}} {
    set msg "seed $::base_seed: $problem\n[probe]"
    # The units as Tcl lists, for replaying by hand.
    set path [file join $::cairn(tmp) failed-[incr ::nfailed].tcl]
    set f [open $path w]
    fconfigure $f -translation binary
    puts $f [list set ::resp3 $::resp3]
    puts $f [list set ::mode $::mode]
    puts $f [list set history $history]
    puts $f [list set units $units]
    close $f
    append msg "\n(history and batch saved in $path)"
    close_all
    kill_server $::srv
    setup_server
    reseed $::c
    set all [concat $history $units]
    set i 0
    foreach unit $all {
        incr i
        set p [run_pipeline $unit]
        if {$p ne ""} {
            if {[llength $all] > 1} {
                append msg "\nreplayed alone after $i of [llength $all] units from a fresh dataset:"
            }
            append msg "\n  [join [lmap a $unit {show_argv $a}] "\n  "]\n  -> $p\n[probe]"
            close_all
            kill_server $::srv
            setup_server
            break
        }
    }
    if {$i == [llength $all] && $p eq ""} { append msg "\nnot reproduced one unit at a time" }
    set ::dirty 1
    return $msg
}

# Replays calls from a fresh dataset, one at a time, to find one that changed
# the digest.
proc find_writer {calls} {
    reseed $::c
    foreach argv $calls {
        set d [digest]
        run_pipeline [list $argv]
        if {[digest] ne $d} { return [show_argv $argv] }
    }
    return "(not reproduced one call at a time)"
}

proc fuzz_command {name} {
    seed_for $name
    set n [expr {$name in $::few_rounds ? max(1, $::rounds / 8) : $::rounds}]
    set errors {}
    for {set done 0} {$done < $n && [llength $errors] < 3} {incr done $::batch} {
        set calls {}
        for {set j 0} {$j < min($::batch, $n - $done)} {incr j} { lappend calls [gen_call $name] }
        set ::mode [batch_mode "$name $done"]
        dict incr ::mode_batches $::mode
        # PFCOUNT updates the cached cardinality: on the replica too.
        if {$::mode eq "replica" && $name eq "pfcount"} { set ::mode plain }
        # Read-only scripts and the replica must not write either (PFCOUNT
        # may update its cached cardinality); under maxmemory even reads
        # evict.
        set check [expr {![may_write $name] || $::mode eq "replica" ||
            ($::mode in {eval_ro fcall_ro} && $name ne "pfcount")}]
        if {$::mode eq "maxmemory"} { set check 0 }
        if {$::dirty} { reseed $::c }
        if {$check} { set d0 [digest] }
        # Every other batch runs in RESP3 (maps, sets, doubles, pushes).
        set ::resp3 [expr {$done / $::batch % 2}]
        set p [run_pipeline $calls]
        if {$p ne ""} {
            lappend errors "mode $::mode: [diagnose [lmap a $calls {list $a}] $p]"
            set ::resp3 0
            set ::mode plain
            continue
        }
        if {$name eq "config|set" || $::mode eq "maxmemory"} { restore_config }
        if {$::mode eq "replica"} {
            if {$name eq "config|set"} { r $::rc CONFIG SET {*}$::config_defaults }
            if {[set e [replica_diff]] ne ""} {
                lappend errors "seed $::base_seed: mode replica, [string toupper $name]: $e"
                set ::mode plain
                close_all
                kill_server $::srv
                setup_server
                set ::dirty 1
                continue
            }
        }
        if {$check} {
            if {[digest] ne $d0} {
                lappend errors "seed $::base_seed: mode $::mode: a command that cannot write changed DEBUG DIGEST: [find_writer $calls]"
                set ::dirty 1
            }
        } else {
            set ::dirty 1
        }
        set ::resp3 0
        set ::mode plain
    }
    if {[llength $errors]} { error [join $errors \n] }
}

# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

setup_server
load_commands
index_examples
build_dense_hll $::c
reseed $::c
dump_payloads $::c

# CAIRN_FUZZ_REPLAY=FILE (a failed-N.tcl a failure saved): run its history
# and batch again the way the fuzzer sent them, in pipelines of at least
# $::batch calls from a fresh dataset, and say where it fails.
if {[::cairn_h::envget CAIRN_FUZZ_REPLAY ""] ne ""} {
    set f [open $::env(CAIRN_FUZZ_REPLAY) r]
    fconfigure $f -translation binary
    eval [read $f]
    close $f
    test "replay $::env(CAIRN_FUZZ_REPLAY)" {
        set calls {}
        set n 0
        foreach unit [concat $history $units] {
            lappend calls {*}$unit
            incr n
            if {[llength $calls] < $::batch && $n < [llength $history] + [llength $units]} continue
            set p [run_pipeline $calls]
            restore_config
            if {$p ne ""} { error "after $n units: $p\n[probe]" }
            set calls {}
        }
    }
    finish
}

test "the dataset holds every type in every encoding" {
    foreach {k e} $::enc {
        assert_equal $e [r $::c OBJECT ENCODING $k] "OBJECT ENCODING $k"
    }
    assert_equal sparse [r $::c PFDEBUG ENCODING hll:sparse]
    assert_equal dense [r $::c PFDEBUG ENCODING hll:dense]
    foreach k {s:ttl h:ttl z:ttl} { assert {[r $::c TTL $k] > 0} $k }
    assert_equal 65536 [string length [r $::c LINDEX l:plain 2]]
    assert_equal [dict size $::enc] [r $::c DBSIZE]
}

set fuzzed {}
set skipped {}
foreach name [dict keys $::cmds] {
    if {![string match $::only $name]} continue
    set why [exclusion $name]
    if {$why ne ""} { lappend skipped "$name ($why)"; continue }
    lappend fuzzed $name
}
puts "# cmdfuzz: not fuzzed alone: [join $skipped {, }]"

set start [clock milliseconds]
foreach name $fuzzed {
    test "fuzz [string toupper $name]" { fuzz_command $name }
}

# Blocking commands with their timeout argument replaced by 10-20 ms or by
# one that fails to parse (a zero or tiny timeout blocks forever), while a
# second client pushes to the dataset's keys, changes their types, swaps
# databases and unblocks the fuzzing client.
set ::timeout_at {
    blpop end brpop end bzpopmin end bzpopmax end brpoplpush 3 blmove 5
    blmpop 1 bzmpop 1
}
proc tame_timeout {argv} {
    set n [string tolower [lindex $argv 0]]
    if {$n in {xread xreadgroup}} {
        foreach i [lsearch -all -nocase $argv BLOCK] {
            if {$i > 0 && $i < [llength $argv] - 1} { lset argv $i+1 [pick {10 20 -1 x}] }
        }
        return $argv
    }
    set at [dict get $::timeout_at $n]
    if {$at eq "end" && [llength $argv] > 2 || $at ne "end" && [llength $argv] > $at} {
        lset argv $at [pick {0.01 0.01 0.02 0.01 -1 abc}]
    }
    return $argv
}

proc gen_disturbance {} {
    set k [pick {l:lp l:ql l:plain z:lp z:sl missing s:int {} db1:l}]
    switch [rnd 10] {
        0 - 1 - 2 { return [list [pick {LPUSH RPUSH}] $k [gen_arg] [gen_arg]] }
        3 - 4 { return [list ZADD $k [rnd 100] [pick $::members]] }
        5 { return [list [pick {DEL SET}] $k x] }
        6 { return [list CLIENT UNBLOCK $::c_id [pick {TIMEOUT ERROR {} x}]] }
        7 { return [list SWAPDB 0 1] }
        8 { return [list LMOVE [pick $::keys] $k [pick {LEFT RIGHT}] [pick {LEFT RIGHT}]] }
        9 { return [list MULTI] }
    }
}

proc fuzz_blocking {name} {
    seed_for "blocking $name"
    set n [expr {max(1, $::rounds / 4)}]
    set errors {}
    for {set done 0} {$done < $n && [llength $errors] < 3} {incr done 16} {
        set calls {}
        for {set j 0} {$j < min(16, $n - $done)} {incr j} {
            lappend calls [tame_timeout [gen_argv $name]]
        }
        set dist {}
        for {set j 0} {$j < 16} {incr j} { lappend dist [gen_disturbance] }
        lappend dist EXEC
        reseed $::c
        set out ""
        foreach argv $calls { append out [::cairn_h::encode $argv] }
        append out [::cairn_h::encode RESET] [::cairn_h::encode PING]
        send_raw $::c $out
        incr ::ncalls [llength $calls]
        # The disturbances arrive a few at a time while calls are blocked.
        foreach {a b c d} $dist {
            set chunk ""
            foreach argv [list $a $b $c $d] {
                if {$argv ne ""} { append chunk [::cairn_h::encode $argv] }
            }
            send_raw $::w $chunk
            after 3
        }
        set p ""
        for {set i 0} {$i < [llength $calls] + 2} {incr i} {
            if {[catch {read_reply $::c} res opts] &&
                    [lrange [dict get $opts -errorcode] 0 1] ne {CAIRN REPLY}} {
                set p "reply [expr {$i + 1}]: $res"
                break
            }
        }
        if {$p eq "" && $res ne "PONG"} { set p "reply count mismatch: last reply '[::cairn_h::show $res]'" }
        if {$p eq ""} {
            for {set i 0} {$i < [llength $dist]} {incr i} {
                if {[catch {read_reply $::w} res opts] &&
                        [lrange [dict get $opts -errorcode] 0 1] ne {CAIRN REPLY}} {
                    set p "second client, reply [expr {$i + 1}]: $res"
                    break
                }
            }
        }
        if {$p eq "" && [catch drain_observers err]} { set p $err }
        if {$p ne ""} {
            lappend errors "seed $::base_seed: $p\ncalls: [join [lmap a $calls {show_argv $a}] {; }]\nsecond client: [join [lmap a $dist {show_argv $a}] {; }]"
            if {![server_alive $::srv]} {
                lappend errors [::cairn_h::tail_file [file join [dict get $::srv dir] stdout] 25]
            }
            close_all
            kill_server $::srv
            setup_server
        }
        set ::dirty 1
    }
    if {[llength $errors]} { error [join $errors \n] }
}

set blocking {}
foreach name [dict keys $::cmds] {
    if {[exclusion $name] eq "blocking" && [string match $::only $name]} {
        if {[dict exists $::timeout_at $name] || $name in {xread xreadgroup}} {
            lappend blocking $name
        } else {
            skip "fuzz [string toupper $name] (blocking)" "no rule for its timeout argument"
        }
    }
}
foreach name $blocking {
    test "fuzz [string toupper $name] (blocking, short timeouts)" { fuzz_blocking $name }
}

# One unit of the mixed stream: a call of any command, or a transaction of
# random calls (blocking commands included: inside MULTI they cannot block),
# sometimes WATCHing keys, sometimes with a call between WATCH and MULTI so
# that EXEC aborts, ended by EXEC or DISCARD.
proc mixed_unit {names txnames} {
    if {[rnd 10] < 7} { return [list [gen_call [pick $names]]] }
    set calls {}
    if {[rnd 3] == 0} {
        lappend calls [list WATCH [pick $::keys] [pick $::keys]]
        if {[rnd 2]} { lappend calls [gen_call [pick $names]] }
    }
    lappend calls MULTI
    for {set k [rnd 6]} {$k > 0} {incr k -1} {
        lappend calls [gen_call [pick $txnames] 1]
    }
    lappend calls [expr {[rnd 5] ? "EXEC" : "DISCARD"}]
    return $calls
}

test "mixed stream of all commands, with MULTI/EXEC" {
    seed_for "mixed stream"
    set txnames {}
    foreach name [dict keys $::cmds] {
        if {[allowed [split $name |] 1] && [string match $::only $name]} { lappend txnames $name }
    }
    # A HELLO 3 earlier in the stream turns the unsubscribe replies into
    # pushes, which the reply count cannot foresee: they have their own
    # batches above.
    set names [lsearch -all -inline -not -regexp $fuzzed {^(p|s)?unsubscribe$}]
    set total [expr {$::rounds * 50}]
    set since_seed 0
    set ::dirty 1
    set errors {}
    set history {}
    while {$total > 0 && [llength $errors] < 3} {
        set units {}
        set calls {}
        while {[llength $calls] < $::batch} {
            set u [mixed_unit $names $txnames]
            lappend units $u
            lappend calls {*}$u
        }
        if {$since_seed >= 1024} { set ::dirty 1 }
        if {$::dirty} { reseed $::c; set since_seed 0; set history {} }
        set p [run_pipeline $calls]
        if {$p ne ""} { lappend errors [diagnose $units $p $history] }
        restore_config
        lappend history {*}$units
        incr since_seed [llength $calls]
        incr total -[llength $calls]
    }
    if {[llength $errors]} { error [join $errors \n] }
}

puts "# cmdfuzz: batches by mode: $::mode_batches"
puts "# cmdfuzz: [llength $fuzzed] commands, $::ncalls calls in [expr {([clock milliseconds] - $start) / 1000.0}] s"

# Volatile keys become persistent first: a key that expires between the
# digest and the reload would make them differ.
proc persist_all {} {
    for {set db 0} {$db < 16} {incr db} {
        r $::c SELECT $db
        set cursor 0
        while {1} {
            lassign [r $::c SCAN $cursor COUNT 1000] cursor keys
            foreach k $keys { r $::c PERSIST $k }
            if {$cursor == 0} break
        }
    }
    r $::c SELECT 0
}

test "the read-only replica holds the primary's dataset" {
    persist_all
    assert_equal "" [replica_diff]
    set ::final_digest [digest]
}

proc shutdown_clean {srv c} {
    send_cmd $c SHUTDOWN NOSAVE
    assert {[connection_closed $c 30000]} "SHUTDOWN NOSAVE closed the connection"
    assert {[::cairn_h::wait_exit [dict get $srv pid] 60000]} "server exited"
    ::cairn_h::forget [dict get $srv pid]
    assert_match "*ready to exit*" [log_tail $srv 5]
}

# Sanitizer reports go to the server's stderr (the harness' DIR/stdout); the
# leak check runs at exit, so the server must exit normally first.
proc check_sanitizer_reports {} {
    foreach out [lsort [glob -nocomplain [file join $::cairn(tmp) server-* stdout]]] {
        set f [open $out r]
        fconfigure $f -translation binary
        set text [read $f]
        close $f
        foreach pat {"ERROR: AddressSanitizer" "ERROR: LeakSanitizer" "runtime error:"} {
            set i [string first $pat $text]
            if {$i >= 0} {
                error "$out has a sanitizer report:\n[string range $text [expr {max(0, $i - 200)}] [expr {$i + 3000}]]"
            }
        }
    }
}

test "clean shutdown, no sanitizer reports" {
    shutdown_clean $::replica $::rc
    shutdown_clean $::srv $::c
    check_sanitizer_reports
}

test "the dataset loads back from the AOF" {
    set ::srv [restart_server $::srv]
    set ::c [client $::srv -timeout 30000]
    assert_equal $::final_digest [digest]
    shutdown_clean $::srv $::c
    check_sanitizer_reports
}

finish
