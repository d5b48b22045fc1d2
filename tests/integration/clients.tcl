# clients.tcl -- interoperability with genuine client software: Debian's
# redis-cli and redis-benchmark (7.0.15), redis-py (python3-redis 4.3, run
# with /usr/bin/python3: redis_py_test.py for strings and generic key
# commands, redis_py_pubsub_test.py for Pub/Sub, MULTI/EXEC, keyspace
# notifications and client tracking, redis_py_script_test.py for Lock and
# scripts, redis_py_connect_test.py for what it sends on connect,
# redis_py_server_test.py for server commands) and ioredis 5
# (ioredis_test.js, run with node, ioredis from tests/clients/node_modules).
# The connect-time commands of client libraries (HELLO, bare COMMAND,
# COMMAND DOCS, INFO, CLIENT SETINFO, CLUSTER, READONLY) go through all
# three, against redis-server 7.0.15's replies.

source [file join [file dirname [info script]] .. helpers harness.tcl]

set here [file dirname [file normalize [info script]]]
set python /usr/bin/python3
set cli [auto_execok redis-cli]
set bench [auto_execok redis-benchmark]

# The main server also listens on a unix socket (used by redis-cli -s,
# redis-benchmark -s and redis-py).
set sock [file join $::cairn(tmp) cairn.sock]
set srv [start_server -config [list unixsocket $sock unixsocketperm 700]]
set c [client $srv]
r $c FLUSHALL

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

# cli_in $srv REDIR arg...: runs redis-cli against srv with the exec stdin
# redirection REDIR (e.g. {< /dev/null}, [list << $text], [list < $file]);
# returns stdout and stderr together (exec strips one trailing newline).
# A non-zero exit status is an error. With srv "" no -h/-p is passed.
proc cli_in {srv redir args} {
    set cmd $::cli
    if {$srv ne ""} {
        lappend cmd -h [dict get $srv host] -p [dict get $srv port]
    }
    if {[catch {exec {*}$cmd {*}$args {*}$redir 2>@1} out]} {
        error "redis-cli [join $args] failed: $out"
    }
    return $out
}

# cli $srv arg...: redis-cli with stdin from /dev/null.
proc cli {srv args} {
    return [cli_in $srv {< /dev/null} {*}$args]
}

# cli_bytes $srv arg...: the exact bytes redis-cli writes to stdout.
proc cli_bytes {srv args} {
    set cmd [list {*}$::cli -h [dict get $srv host] -p [dict get $srv port] {*}$args]
    set f [open |[list {*}$cmd < /dev/null 2>@1] rb]
    set out [read $f]
    close $f
    return $out
}

# bench $srv arg...: runs redis-benchmark; returns its output (stdout and
# stderr) with the progress lines ("\r"-separated) turned into lines.
proc bench {srv args} {
    set cmd [list {*}$::bench -h [dict get $srv host] -p [dict get $srv port] {*}$args]
    if {[catch {exec {*}$cmd < /dev/null 2>@1} out]} {
        error "redis-benchmark [join $args] failed: $out"
    }
    return [string map [list \r \n] $out]
}

# bench_rates OUTPUT: dict TEST -> requests per second from -q output lines
# like "SET: 41666.67 requests per second, p50=0.743 msec".
proc bench_rates {out} {
    set rates [dict create]
    foreach l [split $out \n] {
        if {[regexp {^\s*([A-Z_]+): ([0-9.]+) requests per second} $l -> t rps]} {
            dict set rates $t $rps
        }
    }
    return $rates
}

# Each of SET GET INCR must be reported once, with a positive rate.
proc check_rates {rates out} {
    foreach t {SET GET INCR} {
        assert {[dict exists $rates $t]} "no $t result in: $out"
        assert {[dict get $rates $t] > 0} "$t rate in: $out"
    }
    assert_equal 3 [dict size $rates] "tests reported in: $out"
}

# Checks the keys the benchmark's SET and INCR tests touch (no -r, so the
# key names are literal): INCR ran exactly 2000 times.
proc check_bench_keys {c} {
    assert_equal 2000 [r $c GET counter:__rand_int__]
    assert_equal 3 [r $c STRLEN key:__rand_int__]
}

proc skip_unless_tools {args} {
    foreach t $args {
        if {[set ::$t] eq ""} { skip_test "[string map {cli redis-cli bench redis-benchmark} $t] is not installed" }
    }
}

# ---------------------------------------------------------------------------
# redis-cli
# ---------------------------------------------------------------------------

test "redis-cli PING" {
    skip_unless_tools cli
    assert_equal PONG [cli $srv PING]
    assert_equal hello [cli $srv PING hello]
    assert_equal "\"hello world\"" [cli $srv --no-raw ECHO "hello world"]
}

test "redis-cli SET and GET with spaces in key and value" {
    skip_unless_tools cli
    assert_equal OK [cli $srv SET "cli:key with space" "value with  two spaces"]
    assert_equal "value with  two spaces" [cli $srv GET "cli:key with space"]
    assert_equal "\"value with  two spaces\"" [cli $srv --no-raw GET "cli:key with space"]
    assert_equal "value with  two spaces" [r $c GET "cli:key with space"]
    assert_equal "" [cli $srv GET cli:missing]
    assert_equal "(nil)" [cli $srv --no-raw GET cli:missing]
    assert_equal 1 [cli $srv EXISTS "cli:key with space"]
}

test "redis-cli -x sends binary data from stdin" {
    skip_unless_tools cli
    set data "a\0b\r\n\xff\xfe end"
    set file [file join $::cairn(tmp) binary.dat]
    set f [open $file wb]
    puts -nonewline $f $data
    close $f
    assert_equal OK [cli_in $srv [list < $file] -x SET cli:bin]
    assert_equal $data [r $c GET cli:bin]
    assert_equal 11 [cli $srv STRLEN cli:bin]
    assert_equal {"a\x00b\r\n\xff\xfe end"} [cli $srv --no-raw GET cli:bin]
    # --raw writes the value byte for byte (plus a newline).
    assert_equal "$data\n" [cli_bytes $srv --raw GET cli:bin]
    # -x keeps the trailing newline of its input.
    assert_equal OK [cli_in $srv [list << "line\n"] -x SET cli:nl]
    assert_equal "line\n" [r $c GET cli:nl]
}

test "redis-cli --pipe mass insertion of 10000 SETs" {
    skip_unless_tools cli
    set x [client $srv]
    r $x SELECT 1
    r $x FLUSHDB
    set buf "*2\r\n\$6\r\nSELECT\r\n\$1\r\n1\r\n"
    for {set i 0} {$i < 10000} {incr i} {
        set k "pipe:$i"
        set v "value:[expr {$i * 7}]"
        append buf "*3\r\n\$3\r\nSET\r\n\$[string length $k]\r\n$k\r\n\$[string length $v]\r\n$v\r\n"
    }
    set file [file join $::cairn(tmp) pipe.txt]
    set f [open $file wb]
    puts -nonewline $f $buf
    close $f
    set out [cli_in $srv [list < $file] --pipe]
    assert_match "*All data transferred*" $out
    assert_match "*errors: 0, replies: 10001" $out
    assert_equal 10000 [r $x DBSIZE]
    assert_equal 10000 [cli $srv -n 1 DBSIZE]
    assert_equal "value:0" [r $x GET pipe:0]
    assert_equal "value:69993" [r $x GET pipe:9999]
    assert_equal 0 [r $c EXISTS pipe:0]
    r $x FLUSHDB
    close_client $x
}

test "redis-cli --pipe counts error replies" {
    skip_unless_tools cli
    set text "SELECT 1\r\nSET pipe:s abc\r\nINCR pipe:s\r\nINCR pipe:n\r\nINCR pipe:n\r\n"
    # redis-cli --pipe exits with status 1 when there were error replies.
    set code [catch {exec {*}$cli -h [dict get $srv host] -p [dict get $srv port] --pipe \
        << $text 2>@1} out]
    assert_equal 1 $code $out
    assert_match "*ERR value is not an integer or out of range*" $out
    assert_match "*errors: 1, replies: 5*" $out
    assert_equal 2 [cli $srv -n 1 GET pipe:n]
    cli $srv -n 1 FLUSHDB
}

test "redis-cli --scan --pattern" {
    skip_unless_tools cli
    set want {}
    for {set i 0} {$i < 300} {incr i} {
        r $c SET scan:user:$i $i
        if {$i < 30} { r $c SET scan:other:$i $i }
        if {[string match {1?} $i]} { lappend want scan:user:$i }
    }
    set out [cli $srv --scan --pattern scan:user:1?]
    assert_equal [lsort $want] [lsort [split $out \n]]
    set all [split [cli $srv --scan --pattern scan:user:*] \n]
    assert_equal 300 [llength [lsort -unique $all]]
    set all [split [cli $srv --scan --pattern scan:*] \n]
    assert_equal 330 [llength [lsort -unique $all]]
    assert_equal "" [cli $srv --scan --pattern nomatch:*]
    # --scan with -n and no pattern lists the whole selected db.
    r $c SELECT 4
    r $c MSET d4:a 1 d4:b 2 d4:c 3
    r $c SELECT 0
    assert_equal {d4:a d4:b d4:c} [lsort [split [cli $srv -n 4 --scan] \n]]
    cli $srv -n 4 FLUSHDB
}

# --rdb takes a whole snapshot; --functions-rdb asks (REPLCONF rdb-filter-only
# functions) for one with the function libraries and no keys; --replica
# (rdb-filter-only "") for one with neither, then the stream.
test "redis-cli --rdb, --functions-rdb and --replica" {
    skip_unless_tools cli
    r $c CONFIG SET repl-diskless-sync-delay 0
    r $c FLUSHALL
    r $c FUNCTION FLUSH
    r $c SET rdbcli:key rdbcli:value
    r $c FUNCTION LOAD "#!lua name=rdbclilib\nredis.register_function('rdbclifn', function() return 1 end)"
    set full [file join $::cairn(tmp) cli-full.rdb]
    set funcs [file join $::cairn(tmp) cli-functions.rdb]
    assert_match "*Transfer finished with success*" [cli $srv --rdb $full]
    assert_match "*Transfer finished with success*" [cli $srv --functions-rdb $funcs]
    set read {path {set f [open $path rb]; set d [read $f]; close $f; return $d}}
    set fulldata [apply $read $full]
    set funcdata [apply $read $funcs]
    assert_equal REDIS0010 [string range $funcdata 0 8]
    assert {[string first rdbcli:key $fulldata] > 0} "the key is in the --rdb file"
    assert {[string first rdbclilib $fulldata] > 0} "the library is in the --rdb file"
    assert {[string first rdbclilib $funcdata] > 0} "the library is in the --functions-rdb file"
    assert {[string first rdbcli:key $funcdata] < 0} "no key in the --functions-rdb file"
    # --replica: the filtered payload, then commands as they are applied.
    set out [file join $::cairn(tmp) cli-replica.out]
    # (stdbuf: the commands are printed to a file, otherwise fully buffered)
    set pid [exec stdbuf -o0 {*}$::cli -h [dict get $srv host] -p [dict get $srv port] --replica \
                 > $out 2>@1 &]
    wait_for {[string match "*Logging commands from master*" [apply $read $out]]}
    r $c SET rdbcli:after 1
    set ok [catch {wait_for {[string match {*"SET","rdbcli:after","1"*} [apply $read $out]]}} err]
    exec kill $pid
    if {$ok != 0} { error $err }
    assert {[string first rdbcli:key [apply $read $out]] < 0} "no key in the --replica payload"
    # Redis' errors for what it does not support.
    assert_error "*Unsupported rdb-filter-only option: keys*" {r $c REPLCONF rdb-filter-only keys}
    assert_error "*value is out of range, value must between 0 and 1*" {r $c REPLCONF rdb-only 2}
    r $c FUNCTION FLUSH
    r $c FLUSHALL
    r $c CONFIG SET repl-diskless-sync-delay 5
}

test "redis-cli -3 uses RESP3 (HELLO 3)" {
    skip_unless_tools cli
    r $c SET cli:r3 "resp3 value"
    assert_equal "resp3 value" [cli $srv -3 GET cli:r3]
    assert_equal "(nil)" [cli $srv -3 --no-raw GET cli:missing]
    assert_match "* resp=3*" [cli $srv -3 CLIENT INFO]
    assert_match "* resp=2*" [cli $srv CLIENT INFO]
    # Maps are shown as maps in RESP3 and as flat arrays in RESP2.
    assert_equal {1# "maxmemory" => "0"} [cli $srv -3 --no-raw CONFIG GET maxmemory]
    assert_equal "1) \"maxmemory\"\n2) \"0\"" [cli $srv --no-raw CONFIG GET maxmemory]
    set hello [cli $srv -3 --no-raw HELLO 3]
    assert_match "*\"proto\" => (integer) 3*" $hello
    assert_match "*\"version\" => \"7.*" $hello
    assert_equal "1) \"resp3 value\"\n2) (nil)" [cli $srv -3 --no-raw MGET cli:r3 cli:missing]
}

test "redis-cli INFO keyspace" {
    skip_unless_tools cli
    r $c FLUSHALL
    r $c SET ks:a 1
    r $c SET ks:b 2 EX 1000
    r $c SELECT 5
    r $c SET ks:c 3
    r $c SELECT 0
    set out [cli $srv INFO keyspace]
    set lines {}
    foreach l [split $out \n] {
        set l [string trimright $l \r]
        if {$l ne ""} { lappend lines $l }
    }
    assert_equal 3 [llength $lines] "lines of '$out'"
    assert_equal "# Keyspace" [lindex $lines 0]
    assert {[regexp {^db0:keys=2,expires=1,avg_ttl=(\d+)$} [lindex $lines 1] -> ttl]} \
        "db0 line: [lindex $lines 1]"
    assert_range $ttl 0 1000000
    assert_equal "db5:keys=1,expires=0,avg_ttl=0" [lindex $lines 2]
    # (exec reads with -translation auto: INFO's CRLFs arrive as LFs.)
    set server [cli $srv INFO server]
    assert_match "*\ntcp_port:[dict get $srv port]\n*" $server
    assert_match "*# Keyspace\ndb0:keys=2,*" [cli $srv INFO]
    r $c FLUSHALL
}

test "redis-cli --raw and --no-raw output" {
    skip_unless_tools cli
    r $c DEL cli:cnt
    r $c SET cli:str "not a number"
    assert_equal 1 [cli $srv --raw INCR cli:cnt]
    assert_equal "(integer) 2" [cli $srv --no-raw INCR cli:cnt]
    assert_equal "2\n\nnot a number" [cli $srv --raw MGET cli:cnt cli:missing cli:str]
    assert_equal "1) \"2\"\n2) (nil)\n3) \"not a number\"" \
        [cli $srv --no-raw MGET cli:cnt cli:missing cli:str]
    assert_equal "ERR value is not an integer or out of range" \
        [string trim [cli $srv --raw INCR cli:str]]
    assert_equal "(error) ERR value is not an integer or out of range" \
        [cli $srv --no-raw INCR cli:str]
    assert_equal "OK" [cli $srv --raw SET cli:x y]
    assert_equal "(empty array)" [cli $srv --no-raw KEYS nomatch:*]
    assert_equal "" [cli $srv --raw KEYS nomatch:*]
    assert_equal "(integer) -2" [cli $srv --no-raw TTL cli:missing]
}

test "redis-cli -n selects the database" {
    skip_unless_tools cli
    assert_equal OK [cli $srv -n 3 SET cli:db3 "in db 3"]
    assert_equal "in db 3" [cli $srv -n 3 GET cli:db3]
    assert_equal "" [cli $srv GET cli:db3]
    set x [client $srv]
    r $x SELECT 3
    assert_equal "in db 3" [r $x GET cli:db3]
    assert_equal 1 [r $x DBSIZE]
    assert_equal 1 [cli $srv -n 3 DBSIZE]
    assert_match "* db=3 *" [cli $srv -n 3 CLIENT INFO]
    assert_match "*DB index is out of range*" [cli $srv -n 99 PING]
    # The database number of a redis:// URI.
    assert_equal OK [cli "" -u "redis://[dict get $srv host]:[dict get $srv port]/3" SET cli:uri u]
    assert_equal u [r $x GET cli:uri]
    r $x FLUSHDB
    close_client $x
}

test "redis-cli --bigkeys and --memkeys on a small dataset" {
    skip_unless_tools cli
    set x [client $srv]
    r $x SELECT 6
    r $x FLUSHDB
    for {set i 1} {$i <= 5} {incr i} {
        r $x SET big:$i [string repeat x [expr {$i * 100}]]
    }
    r $x SET big:n 12345
    r $x SET big:e "expiring" EX 1000
    set out [cli $srv -n 6 --bigkeys]
    assert_match "*Sampled 7 keys in the keyspace!*" $out
    assert_match "*Biggest string found '\"big:5\"' has 500 bytes*" $out
    assert_match "*7 strings with 1513 bytes (100.00% of keys, avg size 216.14)*" $out
    assert_match "*0 lists with 0 items*" $out
    set out [cli $srv -n 6 --memkeys]
    assert_match "*Sampled 7 keys in the keyspace!*" $out
    assert {[regexp {Biggest string found '"big:5"' has (\d+) bytes} $out -> n]} $out
    assert {$n >= 500} "MEMORY USAGE of a 500 byte string: $n"
    assert_match "*7 strings with * bytes (100.00% of keys,*" $out
    r $x FLUSHDB
    close_client $x
}

test "redis-cli -a with requirepass" {
    skip_unless_tools cli
    set asrv [start_server -config {requirepass s3cret}]
    assert_equal PONG [cli $asrv --no-auth-warning -a s3cret PING]
    assert_equal "NOAUTH Authentication required." [string trim [cli $asrv PING]]
    assert_match "*AUTH failed: WRONGPASS invalid username-password pair or user is disabled.*" \
        [cli $asrv --no-auth-warning -a wrong PING]
    assert_equal OK [cli $asrv --no-auth-warning -a s3cret SET auth:k "secret value"]
    assert_equal "secret value" [cli $asrv --no-auth-warning --user default --pass s3cret GET auth:k]
    assert_equal OK [cli "" --no-auth-warning \
        -u "redis://default:s3cret@[dict get $asrv host]:[dict get $asrv port]/2" SET auth:u v]
    set ::env(REDISCLI_AUTH) s3cret
    set code [catch {cli $asrv -n 2 GET auth:u} out]
    unset ::env(REDISCLI_AUTH)
    assert_equal 0 $code $out
    assert_equal v $out
    set x [client $asrv -auth s3cret]
    assert_equal "secret value" [r $x GET auth:k]
    r $x SELECT 2
    assert_equal v [r $x GET auth:u]
    close_client $x
    # Interactive mode: AUTH typed as a command.
    set out [cli_in $asrv [list << "GET auth:k\nAUTH s3cret\nGET auth:k\n"]]
    assert_match "NOAUTH Authentication required.*\nOK\nsecret value" $out
    stop_server $asrv
}

test "redis-cli -s over a unix socket" {
    skip_unless_tools cli
    assert {[file exists $sock]} "no socket file $sock"
    assert_equal PONG [cli "" -s $sock PING]
    assert_equal OK [cli "" -s $sock SET unix:k "via the socket"]
    assert_equal "via the socket" [r $c GET unix:k]
    assert_equal "via the socket" [cli "" -s $sock GET unix:k]
    assert_equal OK [cli "" -s $sock -n 2 SET unix:db2 v]
    assert_equal unix:db2 [cli "" -s $sock -n 2 --scan]
    assert_match "* flags=U *" [cli "" -s $sock CLIENT INFO]
    cli "" -s $sock -n 2 FLUSHDB
    assert_equal 1 [cli "" -s $sock DEL unix:k]
}

test "CLIENT INFO over the unix socket reports the socket path" {
    skip_unless_tools cli
    set info [cli "" -s $sock CLIENT INFO]
    assert_match "* laddr=$sock:0 *" $info
    assert_match "* addr=$sock:0 *" $info
}

test "redis-cli interactive mode fed by stdin" {
    skip_unless_tools cli
    r $c SELECT 2
    r $c FLUSHDB
    r $c SELECT 0
    set script [join {
        {SET cli:ia 1}
        {INCR cli:ia}
        {GET cli:ia}
        {SET "cli:i a" "hello world"}
        {GET "cli:i a"}
        {INCR "cli:i a"}
        {MGET cli:ia cli:missing}
        {PING}
        {SELECT 2}
        {SET x y}
        {DBSIZE}
        {ECHO 'single quoted'}
    } \n]
    set out [cli_in $srv [list << "$script\n"]]
    set want [join {
        OK 2 2 OK {hello world}
        {ERR value is not an integer or out of range} {}
        2 {} PONG OK OK 1 {single quoted}
    } \n]
    assert_equal $want $out
    assert_equal "hello world" [r $c GET "cli:i a"]
    # --no-raw output in interactive mode; HELLO 3 switches the protocol.
    set out [cli_in $srv [list << "INCR cli:ia\nGET cli:missing\nHELLO 3\nCONFIG GET maxmemory\n"] --no-raw]
    assert_match "(integer) 3\n(nil)\n*\"proto\" => (integer) 3\n*\n1# \"maxmemory\" => \"0\"" $out
    cli $srv -n 2 FLUSHDB
}

# ---------------------------------------------------------------------------
# What clients send when they connect, through redis-cli
# ---------------------------------------------------------------------------
# Client libraries open with some of HELLO 2/3 (with AUTH and SETNAME), a
# bare COMMAND (redis-py's cluster client builds its key finder from it),
# COMMAND DOCS, INFO (ioredis' ready check), CLIENT SETINFO (newer clients;
# an unknown subcommand in Redis 7.0) and, cluster-aware ones, CLUSTER SLOTS
# or READONLY (an error without cluster mode). Expected texts are those of
# redis-server 7.0.15. A second server has a password for the AUTH cases.

set authsrv [start_server -config {requirepass s3cret}]

# cmdstat $c NAME FIELD: one field of NAME's INFO commandstats line (0 if
# the command has not run).
proc cmdstat {c name field} {
    set d [server_info $c commandstats]
    if {![dict exists $d cmdstat_$name]} { return 0 }
    foreach kv [split [dict get $d cmdstat_$name] ,] {
        lassign [split $kv =] k v
        if {$k eq $field} { return $v }
    }
    return 0
}

# The top-level entries of redis-cli's --no-raw rendering of a bare COMMAND:
# {index name ...}. Top-level indexes are right-aligned to the width of the
# largest one; nested "N) 1) ..." lines are indented further.
proc cli_command_entries {out count} {
    set width [string length $count]
    set entries {}
    foreach l [split $out \n] {
        if {[regexp {^( *)(\d+)\) +1\) "([^"]*)"$} $l -> pad idx name]
                && [string length $pad$idx] == $width} {
            lappend entries $idx $name
        }
    }
    return $entries
}

test "redis-cli bare COMMAND lists each command once, as many as COMMAND COUNT" {
    skip_unless_tools cli
    set count [cli $srv COMMAND COUNT]
    assert {[string is integer -strict $count] && $count > 100} "COMMAND COUNT: $count"
    assert_equal "(integer) $count" [cli $srv --no-raw COMMAND COUNT]
    set entries [cli_command_entries [cli $srv --no-raw COMMAND] $count]
    set names {}
    set i 0
    foreach {idx name} $entries {
        assert_equal [incr i] $idx "entry index"
        lappend names $name
    }
    assert_equal $count [llength $names] "entries in redis-cli COMMAND"
    assert_equal $count [llength [lsort -unique $names]] "distinct names"
    # COMMAND LIST names the same commands, plus container|subcommand.
    set list [split [cli $srv COMMAND LIST] \n]
    assert_equal [lsort $names] [lsort [lsearch -all -inline -not $list *|*]]
    foreach cmd {get set del command hello info client config cluster readonly readwrite asking} {
        assert {$cmd in $names} "$cmd in redis-cli COMMAND"
    }
    # Raw mode: one field a line, GET's entry among them.
    set raw [cli $srv COMMAND]
    assert {[regexp {(^|\n)get\n2\nreadonly\nfast\n1\n1\n1\n@read\n@string\n@fast\n\nflags\nRO\naccess\nbegin_search\n} $raw]} \
        "GET's entry in raw COMMAND output"
}

test "redis-cli COMMAND INFO, DOCS, LIST and GETKEYS" {
    skip_unless_tools cli
    assert_equal [join {
        {1)  1) "get"}
        {    2) (integer) 2}
        {    3) 1) readonly}
        {       2) fast}
        {    4) (integer) 1}
        {    5) (integer) 1}
        {    6) (integer) 1}
        {    7) 1) @read}
        {       2) @string}
        {       3) @fast}
        {    8) (empty array)}
        {    9) 1) 1) "flags"}
        {          2) 1) RO}
        {             2) access}
        {          3) "begin_search"}
        {          4) 1) "type"}
        {             2) "index"}
        {             3) "spec"}
        {             4) 1) "index"}
        {                2) (integer) 1}
        {          5) "find_keys"}
        {          6) 1) "type"}
        {             2) "range"}
        {             3) "spec"}
        {             4) 1) "lastkey"}
        {                2) (integer) 0}
        {                3) "keystep"}
        {                4) (integer) 1}
        {                5) "limit"}
        {                6) (integer) 0}
        {   10) (empty array)}
    } \n] [cli $srv --no-raw COMMAND INFO get]
    assert_equal "1) (nil)" [lindex [split [cli $srv --no-raw COMMAND INFO nosuchcommand get] \n] 0]
    # COMMAND DOCS: cairn has no argument docs or complexity, so only the
    # leading fields both servers return are compared.
    assert_equal {get summary {Get the value of a key} since 1.0.0 group string} \
        [lrange [split [cli $srv COMMAND DOCS get] \n] 0 6]
    assert_equal {cluster|info summary {Provides info about Redis Cluster node state} since 3.0.0 group cluster} \
        [lrange [split [cli $srv COMMAND DOCS cluster|info] \n] 0 6]
    assert_equal "" [cli $srv COMMAND DOCS nosuchcommand]
    set cl [lsort [split [cli $srv COMMAND LIST FILTERBY PATTERN cluster*] \n]]
    assert_equal 28 [llength $cl] "cluster and its 27 subcommands: $cl"
    foreach n {cluster cluster|info cluster|slots cluster|shards cluster|nodes cluster|myid} {
        assert {$n in $cl} "$n in COMMAND LIST FILTERBY PATTERN cluster*"
    }
    assert_equal "a\nb" [cli $srv COMMAND GETKEYS MSET a 1 b 2]
    assert_equal "dst\na\nb" [cli $srv COMMAND GETKEYS ZUNIONSTORE dst 2 a b WEIGHTS 1 2]
    assert_equal [join {
        {1) 1) "a"}
        {   2) 1) RW}
        {      2) access}
        {      3) delete}
        {2) 1) "b"}
        {   2) 1) RW}
        {      2) insert}
    } \n] [cli $srv --no-raw COMMAND GETKEYSANDFLAGS LMOVE a b LEFT RIGHT]
    assert_equal "(error) ERR The command has no key arguments" [cli $srv --no-raw COMMAND GETKEYS ECHO x]
    assert_equal "(error) ERR Invalid command specified" [cli $srv --no-raw COMMAND GETKEYS NOSUCH a]
}

test "redis-cli HELLO 2 and HELLO 3 with AUTH and SETNAME" {
    skip_unless_tools cli
    set script [join {
        {HELLO 3 AUTH default s3cret SETNAME cli-hello}
        {CLIENT GETNAME}
        {CONFIG GET maxmemory}
        {HELLO 2}
        {CONFIG GET maxmemory}
        {HELLO 3 AUTH default wrong}
        {HELLO 2 AUTH default s3cret SETNAME "bad name"}
        {CLIENT GETNAME}
        {HELLO 4}
    } \n]
    set out [cli_in $authsrv [list << "$script\n"] --no-raw]
    # The connection id is the server's own.
    regsub -all {"id" => \(integer\) \d+} $out {"id" => (integer) ID} out
    regsub -all {\n 8\) \(integer\) \d+\n} $out "\n 8) (integer) ID\n" out
    assert_equal [join {
        {1# "server" => "redis"}
        {2# "version" => "7.0.15"}
        {3# "proto" => (integer) 3}
        {4# "id" => (integer) ID}
        {5# "mode" => "standalone"}
        {6# "role" => "master"}
        {7# "modules" => (empty array)}
        {"cli-hello"}
        {1# "maxmemory" => "0"}
        { 1) "server"}
        { 2) "redis"}
        { 3) "version"}
        { 4) "7.0.15"}
        { 5) "proto"}
        { 6) (integer) 2}
        { 7) "id"}
        { 8) (integer) ID}
        { 9) "mode"}
        {10) "standalone"}
        {11) "role"}
        {12) "master"}
        {13) "modules"}
        {14) (empty array)}
        {1) "maxmemory"}
        {2) "0"}
        {(error) WRONGPASS invalid username-password pair or user is disabled.}
        {(error) ERR Client names cannot contain spaces, newlines or special characters.}
        {"cli-hello"}
        {(error) NOPROTO unsupported protocol version}
    } \n] $out
    # HELLO 2 SETNAME on the server without a password, and -3 (HELLO 3).
    set out [cli_in $srv [list << "HELLO 2 SETNAME cli-two\nCLIENT GETNAME\n"]]
    assert_match "server\nredis\nversion\n7.0.15\nproto\n2\nid\n*\nmode\nstandalone\nrole\nmaster\nmodules\n\ncli-two" $out
    assert_match "*\"proto\" => (integer) 3*" [cli $srv -3 --no-raw HELLO]
}

test "redis-cli handshake commands before AUTH" {
    skip_unless_tools cli
    set script [join {
        {HELLO 3}
        {COMMAND}
        {COMMAND DOCS get}
        {INFO server}
        {CLIENT SETNAME early}
        {CLIENT SETINFO lib-name redis-cli}
        {CLUSTER INFO}
        {READONLY}
        {HELLO 2 AUTH default s3cret SETNAME later}
        {READONLY}
        {CLIENT GETNAME}
    } \n]
    set out [cli_in $authsrv [list << "$script\n"] --no-raw]
    regsub {\n 8\) \(integer\) \d+\n} $out "\n 8) (integer) ID\n" out
    set noauth "(error) NOAUTH Authentication required."
    # CLIENT SETINFO fails its lookup before the auth check, as in Redis.
    # (redis-cli shows INFO and CLUSTER INFO replies raw, even errors.)
    assert_equal [join [list \
        "(error) NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time" \
        $noauth $noauth [string range $noauth 8 end] $noauth \
        "(error) ERR unknown subcommand 'SETINFO'. Try CLIENT HELP." \
        [string range $noauth 8 end] $noauth \
        { 1) "server"} { 2) "redis"} { 3) "version"} { 4) "7.0.15"} { 5) "proto"} \
        { 6) (integer) 2} { 7) "id"} { 8) (integer) ID} { 9) "mode"} {10) "standalone"} \
        {11) "role"} {12) "master"} {13) "modules"} {14) (empty array)} \
        "(error) ERR This instance has cluster support disabled" {"later"}] \n] $out
}

# The handshake as the bytes a client library sees: everything in one
# write, the protocol switched by HELLO in the middle of the pipeline.
proc hello_bytes {proto} {
    set head [expr {$proto == 3 ? "%7" : "*14"}]
    return "$head\r\n\$6\r\nserver\r\n\$5\r\nredis\r\n\$7\r\nversion\r\n\$6\r\n7.0.15\r\n\$5\r\nproto\r\n:$proto\r\n\$2\r\nid\r\n:ID\r\n\$4\r\nmode\r\n\$10\r\nstandalone\r\n\$4\r\nrole\r\n\$6\r\nmaster\r\n\$7\r\nmodules\r\n*0\r\n"
}
proc without_id {raw} {
    regsub {\$2\r\nid\r\n:\d+\r\n} $raw "\$2\r\nid\r\n:ID\r\n" raw
    return $raw
}

test "connect-time commands pipelined in one write, RESP2 to RESP3 and back" {
    set x [client $authsrv]
    set count [r $c COMMAND COUNT]
    set info_get "*1\r\n*10\r\n\$3\r\nget\r\n:2\r\n~2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n~3\r\n+@read\r\n+@string\r\n+@fast\r\n~0\r\n~1\r\n%3\r\n"
    set cmds {
        {COMMAND} {CLIENT SETINFO lib-name tcl} {HELLO 3 AUTH default s3cret SETNAME raw-pipe}
        {CLIENT GETNAME} {INFO server} {COMMAND DOCS get} {COMMAND INFO get} {COMMAND}
        {CLIENT SETINFO lib-name tcl} {CLIENT SETINFO lib-ver 1.0} {CLUSTER INFO} {CLUSTER SLOTS}
        {READONLY} {READWRITE} {ASKING} {HELLO 2} {COMMAND INFO get} {CLIENT GETNAME} {PING}
    }
    set pipe ""
    foreach cmd $cmds { append pipe [::cairn_h::encode $cmd] }
    send_raw $x $pipe
    set replies {}
    foreach cmd $cmds { lappend replies [read_raw_reply $x] }
    lassign $replies noauth setinfo hello3 name info docs cinfo table
    assert_equal "-NOAUTH Authentication required.\r\n" $noauth
    assert_equal "-ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.\r\n" $setinfo
    assert_equal [hello_bytes 3] [without_id $hello3]
    assert_equal "\$8\r\nraw-pipe\r\n" $name
    # RESP3 INFO is a verbatim string of format txt.
    assert {[regexp {^=(\d+)\r\ntxt:# Server\r\nredis_version:7\.0\.15\r\n} $info -> len]} [string range $info 0 80]
    assert_equal [expr {[string length $info] - [string length "=$len\r\n\r\n"]}] $len
    assert_equal 0 [string first "%1\r\n\$3\r\nget\r\n%" $docs] $docs
    assert_match "*\$7\r\nsummary\r\n\$22\r\nGet the value of a key\r\n\$5\r\nsince\r\n\$5\r\n1.0.0\r\n\$5\r\ngroup\r\n\$6\r\nstring\r\n*" $docs
    assert_equal 0 [string first $info_get $cinfo] $cinfo
    # The password server runs the same binary: the same table size.
    assert_equal 0 [string first "*$count\r\n*10\r\n" $table] [string range $table 0 40]
    set err "-ERR This instance has cluster support disabled\r\n"
    assert_equal [list $setinfo "-ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.\r\n" $err $err $err $err $err] \
        [lrange $replies 8 14]
    assert_equal [hello_bytes 2] [without_id [lindex $replies 15]]
    # Back in RESP2, sets are arrays again.
    set info_get2 [string map {~ *} $info_get]
    assert_equal 0 [string first [string map {%3 *6} $info_get2] [lindex $replies 16]] [lindex $replies 16]
    assert_equal [list "\$8\r\nraw-pipe\r\n" "+PONG\r\n"] [lrange $replies 17 18]
    close_client $x
}

test "redis-cli CLIENT SETINFO, CLUSTER, READONLY, READWRITE, ASKING (no cluster mode)" {
    skip_unless_tools cli
    set off "ERR This instance has cluster support disabled"
    assert_equal "(error) ERR unknown subcommand 'SETINFO'. Try CLIENT HELP." \
        [cli $srv --no-raw CLIENT SETINFO lib-name x]
    assert_equal "(error) ERR unknown subcommand 'SETINFO'. Try CLIENT HELP." \
        [cli $srv --no-raw CLIENT SETINFO lib-ver 1.2.3]
    foreach cmd {{CLUSTER INFO} {CLUSTER SLOTS} {CLUSTER SHARDS} {CLUSTER NODES} {CLUSTER MYID}
            {CLUSTER HELP} {CLUSTER KEYSLOT k} {cluster countkeysinslot 1} READONLY READWRITE ASKING} {
        # Raw: redis-cli always prints CLUSTER INFO and NODES raw.
        assert_equal $off [string trim [cli $srv --raw {*}$cmd]] $cmd
    }
    assert_equal "(error) ERR unknown subcommand 'FOO'. Try CLUSTER HELP." [cli $srv --no-raw CLUSTER FOO]
    assert_equal "(error) ERR wrong number of arguments for 'cluster|info' command" \
        [cli $srv --no-raw CLUSTER INFO extra]
    assert_equal "(error) ERR wrong number of arguments for 'cluster' command" [cli $srv --no-raw CLUSTER]
    assert_equal "(error) ERR wrong number of arguments for 'readonly' command" [cli $srv --no-raw READONLY x]
    # The failures are counted as the commands' own, as Redis does.
    set before [cmdstat $c cluster|info failed_calls]
    cli $srv CLUSTER INFO
    assert_equal [expr {$before + 1}] [cmdstat $c cluster|info failed_calls]
    assert_equal "cluster_enabled:0" [string trim [lindex [split [cli $srv INFO cluster] \n] 1]]
    # redis-cli's own cluster manager tells it from INFO's cluster section.
    set code [catch {exec {*}$cli --cluster check [dict get $srv host]:[dict get $srv port] < /dev/null 2>@1} out]
    regsub -all {\x1b\[[0-9;]*m} $out "" out
    assert_equal 1 $code $out
    assert_equal 0 [string first "\[ERR\] Node [dict get $srv host]:[dict get $srv port] is not configured as a cluster node." $out] $out
}

test "redis-cli --pipe of a whole client handshake" {
    skip_unless_tools cli
    set text [join {
        {HELLO 2 SETNAME piped} COMMAND {COMMAND COUNT} {COMMAND DOCS get} INFO
        {CLIENT SETNAME piped2} {CLIENT SETINFO lib-name x} {CLIENT SETINFO lib-ver 1.0}
        {CLUSTER INFO} {CLUSTER SLOTS} READONLY READWRITE {CLIENT GETNAME} PING
    } \r\n]
    set calls [cmdstat $c command calls]
    set fails [cmdstat $c readonly failed_calls]
    set code [catch {exec {*}$cli -h [dict get $srv host] -p [dict get $srv port] --pipe \
        << "$text\r\n" 2>@1} out]
    # Exit status 1: there were error replies.
    assert_equal 1 $code $out
    assert_match "*errors: 6, replies: 14*" $out
    assert_equal 2 [regexp -all {ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.} $out] $out
    assert_equal 4 [regexp -all {ERR This instance has cluster support disabled} $out] $out
    assert_equal [expr {$calls + 1}] [cmdstat $c command calls]
    assert_equal [expr {$fails + 1}] [cmdstat $c readonly failed_calls]
    # HELLO 3 in the middle of a pipe: the rest is read as RESP3.
    set out [cli_in $srv [list << "HELLO 3\r\nCOMMAND DOCS get\r\nCONFIG GET maxmemory\r\nPING\r\n"] --pipe]
    assert_match "*errors: 0, replies: 4" $out
}

# ---------------------------------------------------------------------------
# redis-benchmark
# ---------------------------------------------------------------------------

test "redis-benchmark -t set,get,incr -n 2000 -q" {
    skip_unless_tools bench
    r $c DEL counter:__rand_int__ key:__rand_int__
    set out [bench $srv -t set,get,incr -n 2000 -q]
    check_rates [bench_rates $out] $out
    assert {![string match "*WARNING*" $out]} $out
    check_bench_keys $c
}

test "redis-benchmark -P 16 (pipelining)" {
    skip_unless_tools bench
    r $c DEL counter:__rand_int__ key:__rand_int__
    set out [bench $srv -t set,get,incr -n 2000 -P 16 -q]
    check_rates [bench_rates $out] $out
    check_bench_keys $c
}

test "redis-benchmark --csv" {
    skip_unless_tools bench
    r $c DEL counter:__rand_int__ key:__rand_int__
    set out [bench $srv -t set,get,incr -n 2000 --csv]
    set rows {}
    foreach l [split $out \n] {
        if {[string index $l 0] eq "\""} { lappend rows [split [string map {\" ""} $l] ,] }
    }
    assert_equal {test rps avg_latency_ms min_latency_ms p50_latency_ms p95_latency_ms p99_latency_ms max_latency_ms} \
        [lindex $rows 0]
    assert_equal 4 [llength $rows] $out
    foreach row [lrange $rows 1 end] want {SET GET INCR} {
        assert_equal $want [lindex $row 0]
        assert {[lindex $row 1] > 0} "rps of $row"
        foreach v [lrange $row 2 end] { assert {[string is double -strict $v] && $v >= 0} "$row" }
    }
    check_bench_keys $c
}

test "redis-benchmark -c 50 clients" {
    skip_unless_tools bench
    r $c DEL counter:__rand_int__ key:__rand_int__
    set before [info_field $c total_connections_received stats]
    set out [bench $srv -t set,get,incr -n 2000 -c 50 -q]
    check_rates [bench_rates $out] $out
    check_bench_keys $c
    set after [info_field $c total_connections_received stats]
    assert {$after - $before >= 50} "connections received: $before -> $after"
    wait_for {[info_field $c connected_clients clients] == 1} 5000 \
        "benchmark connections closed"
}

test "redis-benchmark -s over the unix socket" {
    skip_unless_tools bench
    r $c DEL counter:__rand_int__ key:__rand_int__
    if {[catch {exec {*}$bench -s $sock -t set,get,incr -n 2000 -q < /dev/null 2>@1} out]} {
        error "redis-benchmark -s failed: $out"
    }
    set out [string map [list \r \n] $out]
    check_rates [bench_rates $out] $out
    check_bench_keys $c
    r $c DEL counter:__rand_int__ key:__rand_int__
}

# ---------------------------------------------------------------------------
# redis-py and ioredis
# ---------------------------------------------------------------------------
# Each client library runs a script of its own tests, which prints the same
# [ok]/[err]/[skip] lines and summary as a test file; its skips are passed
# on as skips here, its failures fail the one test that ran it.

set node [expr {[file executable /usr/bin/node] ? "/usr/bin/node" : [auto_execok node]}]
set ioredis_dir [file join $here .. clients node_modules ioredis]

# script_suite CMD MIN: runs a client-library test script (CMD, a list) and
# asserts it passed at least MIN tests and failed none.
proc script_suite {cmd min} {
    set code [catch {exec {*}$cmd < /dev/null 2>@1} out]
    set lines [split [string trimright $out \n] \n]
    # exec appends "child process exited abnormally" on exit 1.
    if {$code && [string match "child process exited abnormally" [lindex $lines end]]} {
        set lines [lrange $lines 0 end-1]
    }
    set script [file tail [lsearch -inline -regexp $cmd {\.(py|js)$}]]
    foreach l $lines {
        if {[regexp {^\[skip\] ([^:]+): (.*)$} $l -> name reason]} {
            skip "$script: $name" $reason
        }
    }
    set last [lindex $lines end]
    set errs [lsearch -all -inline -regexp $lines {^(\[err\]|    )}]
    assert {[regexp {^(\d+) passed, (\d+) failed(, \d+ skipped)?$} $last -> np nf]} \
        "no summary line; output:\n$out"
    assert {$nf == 0} "failures:\n[join $errs \n]"
    assert {$np >= $min} "only $np tests passed"
    assert_equal 0 $code "exit status; output:\n$out"
}

proc python_missing {} {
    if {![file executable $::python]} { return "$::python not found" }
    if {[catch {exec $::python -c "import redis" 2>@1} err]} { return "cannot import redis: $err" }
    return ""
}

if {[set why [python_missing]] ne ""} {
    skip "redis-py test suite (redis_py_test.py)" "python3-redis not importable ($why)"
    skip "redis-py pubsub/transaction suite (redis_py_pubsub_test.py)" "python3-redis not importable ($why)"
    skip "redis-py connect and introspection suite (redis_py_connect_test.py)" "python3-redis not importable ($why)"
    skip "redis-py ACL suite (redis_py_acl_test.py)" "python3-redis not importable ($why)"
    skip "redis-py scripting suite (redis_py_script_test.py)" "python3-redis not importable ($why)"
    skip "redis-py server commands suite (redis_py_server_test.py)" "python3-redis not importable ($why)"
} else {
    test "redis-py test suite (redis_py_test.py)" {
        script_suite [list $python -B [file join $here redis_py_test.py] \
            [dict get $srv host] [dict get $srv port] $sock] 20
        assert_equal PONG [r $c PING]
    }

    # Pub/Sub, transactions, keyspace notifications and RESP2 client-side
    # caching through redis-py.
    test "redis-py pubsub/transaction suite (redis_py_pubsub_test.py)" {
        script_suite [list $python -B [file join $here redis_py_pubsub_test.py] \
            [dict get $srv host] [dict get $srv port]] 15
        # The script restores what it changed.
        assert_equal {notify-keyspace-events {}} [r $c CONFIG GET notify-keyspace-events]
        assert_equal 0 [r $c PUBSUB NUMPAT]
        assert_equal PONG [r $c PING]
    }

    # What redis-py sends on connect (AUTH, SETNAME, SELECT, HELLO 2), its
    # COMMAND-based key finder, CLUSTER/READONLY errors, in pipelines.
    test "redis-py connect and introspection suite (redis_py_connect_test.py)" {
        script_suite [list $python -B [file join $here redis_py_connect_test.py] \
            [dict get $srv host] [dict get $srv port] [dict get $authsrv port] s3cret] 11
        assert_equal PONG [r $c PING]
    }

    # The ACL examples through redis-py's acl_* methods.
    test "redis-py ACL suite (redis_py_acl_test.py)" {
        script_suite [list $python -B [file join $here redis_py_acl_test.py] \
            [dict get $srv host] [dict get $srv port]] 5
        # The script deletes the users it made.
        assert_equal {default} [r $c ACL USERS]
    }

    # Lock (EVALSHA of its scripts), register_script and eval replies.
    test "redis-py scripting suite (redis_py_script_test.py)" {
        script_suite [list $python -B [file join $here redis_py_script_test.py] \
            [dict get $srv host] [dict get $srv port]] 5
        assert_equal {} [r $c KEYS pylua:*]
    }

    # Server commands as redis-py's own suite calls them: LOLWUT, MODULE
    # without modules, sync()/psync() from a plain connection.
    test "redis-py server commands suite (redis_py_server_test.py)" {
        script_suite [list $python -B [file join $here redis_py_server_test.py] \
            [dict get $srv host] [dict get $srv port]] 4
        assert_equal PONG [r $c PING]
    }
}

if {$node eq ""} {
    skip "ioredis suite (ioredis_test.js)" "node is not installed"
} elseif {![file isdirectory $ioredis_dir]} {
    skip "ioredis suite (ioredis_test.js)" \
        "ioredis is not installed in tests/clients/node_modules (sh utils/deps test installs it)"
} else {
    test "ioredis suite (ioredis_test.js)" {
        script_suite [list $node [file join $here ioredis_test.js] \
            [dict get $srv host] [dict get $srv port] [dict get $authsrv port] s3cret] 12
        assert_equal PONG [r $c PING]
        assert_equal 0 [r $c EXISTS io:auto]
    }

    # Application-style use of ioredis and node-redis, run against a fresh
    # server of each kind: every step's result must be the reference's.
    test "ioredis and node-redis usage, side by side with redis-server (node_usage_test.js)" {
        if {$::cairn(reference) eq ""} { skip_test "no reference server" }
        set outs {}
        foreach bin [list $::cairn(server) $::cairn(reference)] {
            set s [start_server -binary $bin]
            set cmd [list $node [file join $here node_usage_test.js] [dict get $s host] [dict get $s port]]
            if {[catch {exec {*}$cmd 2>@1} out]} { error "node_usage_test.js failed: $out" }
            lappend outs [split $out \n]
            stop_server $s
        }
        lassign $outs mine theirs
        assert_equal done [lindex $theirs end] "the reference run finished"
        assert {[llength $mine] >= 30} "only [llength $mine] steps"
        foreach a $mine b $theirs {
            if {$a ne $b} { error "differs from redis-server:\n  cairn: $a\n  redis: $b" }
        }
    }
}

finish
