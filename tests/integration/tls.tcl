# tls.tcl -- clients over TLS (tls-port): the string and list basics in
# RESP2 and RESP3 over tcl-tls, redis-cli --tls, redis-py (ssl=True) and
# ioredis (tls options); big pipelined replies (the socket fills, SSL_write
# wants to be retried) and big requests; input left decrypted inside OpenSSL
# (DEBUG READ-CHUNK) served without new socket data; tls-auth-clients
# yes/no/optional with valid, missing, expired and untrusted client
# certificates, each outcome compared with redis-server 7.0.15 given the same
# certificates (redis-cli sees a clean close where redis-server sometimes
# resets); certificate reloads by CONFIG SET (a new path, the same path
# with a new file, a bad file refused with the old context kept) under
# connected clients and a running benchmark. Malformed and stalled peers are
# in tls_junk.tcl.

source [file join [file dirname [info script]] .. helpers harness.tcl]
source [file join [file dirname [info script]] .. helpers tls.tcl]

set here [file dirname [file normalize [info script]]]
set cli [auto_execok redis-cli]
set bench [auto_execok redis-benchmark]
set python /usr/bin/python3

set srv [start_tls_server]
set c [client $srv]

# The redis-cli/redis-benchmark arguments of a TLS connection to srv.
proc tls_cli_args {srv {name client}} {
    set a [list -h 127.0.0.1 -p [dict get $srv tls_port] --tls --cacert [cert ca.crt]]
    if {$name ne ""} { lappend a --cert [cert $name.crt] --key [cert $name.key] }
    return $a
}

test "String and list basics over TLS in RESP2" {
    set t [client $srv -tls [tls_opts]]
    assert_equal PONG [r $t PING]
    assert_equal OK [r $t SET tls:s hello]
    assert_equal hello [r $t GET tls:s]
    assert_equal 6 [r $t APPEND tls:s !]
    assert_equal 1 [r $t INCR tls:n]
    assert_equal 4 [r $t RPUSH tls:l a b c d]
    assert_equal {b c} [r $t LRANGE tls:l 1 2]
    assert_equal d [r $t RPOP tls:l]
    # The same keyspace the plain port serves.
    assert_equal hello! [r $c GET tls:s]
    assert_equal 3 [r $c LLEN tls:l]
    close_client $t
}

test "String and list basics over TLS in RESP3" {
    set t [client $srv -tls [tls_opts] -resp 3]
    assert_equal OK [r $t SET tls:s3 v]
    assert_equal v [r $t GET tls:s3]
    assert_equal 2 [r $t LPUSH tls:l3 x y]
    assert_equal {y x} [r $t LRANGE tls:l3 0 -1]
    assert_equal {} [r $t GET tls:missing]
    set h [r $t HELLO 3]
    assert_equal 3 [dict get $h proto]
    close_client $t
}

test "CLIENT LIST names a TLS client by its TCP address" {
    set t [client $srv -tls [tls_opts]]
    r $t CLIENT SETNAME tlsclient
    set line [lsearch -inline [split [r $c CLIENT LIST] \n] "*name=tlsclient*"]
    assert_match "*addr=127.0.0.1:*" $line
    close_client $t
}

test "Big pipelined replies over TLS arrive whole (writes wait for the socket)" {
    set t [client $srv -tls [tls_opts]]
    set big [string repeat "0123456789abcdef" 65536]
    r $t SET tls:big $big
    # 40 MB of replies requested at once: the server's writes fill the
    # socket long before the client reads.
    set n 40
    set req ""
    for {set i 0} {$i < $n} {incr i} { append req [resp GET tls:big] }
    send_raw $t $req
    after 300
    for {set i 0} {$i < $n} {incr i} {
        set got [read_reply $t]
        if {$got ne $big} { error "reply $i differs (length [string length $got])" }
    }
    assert_equal PONG [r $t PING]
    close_client $t
}

test "Big requests over TLS (one argument over many records)" {
    set t [client $srv -tls [tls_opts] -resp 3]
    set v [string repeat "xyz\r\n\0" 900000]
    assert_equal OK [r $t SET tls:bigreq $v]
    assert_equal [string length $v] [r $c STRLEN tls:bigreq]
    assert_equal $v [r $c GET tls:bigreq]
    # Many commands in one write, each split across record boundaries.
    set req ""
    for {set i 0} {$i < 3000} {incr i} { append req [resp RPUSH tls:many [string repeat v $i]] }
    send_raw $t $req
    for {set i 0} {$i < 3000} {incr i} { set last [read_reply $t] }
    assert_equal 3000 $last
    close_client $t
}

test "Input decrypted but not yet read is served without more socket data" {
    # 7-byte reads leave most of each TLS record inside OpenSSL, where
    # epoll cannot see it: only the pending list brings it to the client.
    r $c DEBUG READ-CHUNK 7
    set t [client $srv -tls [tls_opts]]
    set req ""
    for {set i 0} {$i < 400} {incr i} { append req [resp SET tls:p:$i $i] }
    append req [resp PING]
    send_raw $t $req
    for {set i 0} {$i < 400} {incr i} { assert_equal OK [read_reply $t] }
    assert_equal PONG [read_reply $t]
    set v [string repeat a 100000]
    assert_equal OK [r $t SET tls:pbig $v]
    assert_equal $v [r $t GET tls:pbig]
    r $c DEBUG READ-CHUNK 0
    close_client $t
}

test "redis-cli --tls runs commands and reads big replies" {
    if {$cli eq ""} { skip_test "redis-cli is not installed" }
    set a [tls_cli_args $srv]
    assert_equal PONG [exec {*}$cli {*}$a PING]
    assert_equal OK [exec {*}$cli {*}$a SET tls:cli "a b"]
    assert_equal "a b" [exec {*}$cli {*}$a GET tls:cli]
    assert_equal 2 [exec {*}$cli {*}$a RPUSH tls:clil 1 2]
    assert_equal "1\n2" [exec {*}$cli {*}$a LRANGE tls:clil 0 -1]
    assert_equal [string length [r $c GET tls:big]] [string length [exec {*}$cli {*}$a GET tls:big]]
    # --resp3 through redis-cli's HELLO
    assert_match "*proto*3*" [exec {*}$cli {*}$a -3 HELLO 3]
}

test "redis-benchmark --tls (SET, GET, pipelined) completes" {
    if {$bench eq ""} { skip_test "redis-benchmark is not installed" }
    set out [exec {*}$bench {*}[tls_cli_args $srv] -t set,get -n 2000 -c 10 -P 8 -q 2>@1]
    assert_match "*SET: *requests per second*" $out
    assert_match "*GET: *requests per second*" $out
    assert {![string match "*rror*" $out]} $out
}

test "redis-py connects with ssl=True" {
    if {[catch {exec $python -c "import redis, ssl"} err]} { skip_test "python3-redis: $err" }
    set script {
import sys, redis
port, ca, crt, key = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
r = redis.Redis(host="127.0.0.1", port=port, ssl=True, ssl_ca_certs=ca, ssl_certfile=crt,
                ssl_keyfile=key, ssl_cert_reqs="required", decode_responses=True)
assert r.ping()
r.set("tls:py", "snake")
assert r.get("tls:py") == "snake"
r.delete("tls:pyl")
r.rpush("tls:pyl", *range(100))
assert r.lrange("tls:pyl", 0, 2) == ["0", "1", "2"]
p = r.pipeline(transaction=False)
for i in range(5000):
    p.incr("tls:pyn")
assert p.execute()[-1] == 5000
print("ok")
}
    assert_equal ok [exec $python -c $script [dict get $srv tls_port] [cert ca.crt] \
            [cert client.crt] [cert client.key] 2>@1]
    assert_equal 5000 [r $c GET tls:pyn]
}

test "ioredis connects with tls options" {
    set node [expr {[file executable /usr/bin/node] ? "/usr/bin/node" : [auto_execok node]}]
    set mods [file join $here .. clients node_modules]
    if {$node eq "" || ![file isdirectory [file join $mods ioredis]]} {
        skip_test "node or ioredis (tests/clients/node_modules) is missing"
    }
    set script {
const fs = require("fs");
// node -e: the arguments after "--" start at argv[1].
const Redis = require(process.argv[1] + "/ioredis");
const [port, ca, crt, key] = process.argv.slice(2);
const r = new Redis({host: "127.0.0.1", port: +port, lazyConnect: true, maxRetriesPerRequest: 0,
  tls: {ca: fs.readFileSync(ca), cert: fs.readFileSync(crt), key: fs.readFileSync(key),
        servername: "localhost"}});
(async () => {
  await r.connect();
  await r.set("tls:js", "node");
  if (await r.get("tls:js") !== "node") throw new Error("GET");
  await r.del("tls:jsl");
  await r.rpush("tls:jsl", "a", "b");
  const l = await r.lrange("tls:jsl", 0, -1);
  if (l.join() !== "a,b") throw new Error("LRANGE " + l);
  console.log("ok");
  r.disconnect();
})().catch((e) => { console.log("error " + e); process.exit(1); });
}
    assert_equal ok [exec $node -e $script -- $mods [dict get $srv tls_port] [cert ca.crt] \
            [cert client.crt] [cert client.key] 2>@1]
}

# ---------------------------------------------------------------------------
# Client certificates, against redis-server with the same certificates
# ---------------------------------------------------------------------------

set ref $::cairn(reference)
set auth_cases {
    yes {client ok {} refused expired refused untrusted refused}
    optional {client ok {} ok expired refused untrusted refused}
    no {client ok {} ok expired ok untrusted ok}
}

foreach {mode cases} $auth_cases {
    test "tls-auth-clients $mode: valid, missing, expired and untrusted certificates" {
        r $c CONFIG SET tls-auth-clients $mode
        foreach {name want} $cases {
            assert_equal $want [tls_try $srv $name] "certificate '$name'"
            # Whatever happened to it, others are served.
            assert_equal PONG [r $c PING]
        }
        if {$ref ne ""} {
            set rs [start_tls_server -binary $ref tls-auth-clients $mode]
            foreach {name want} $cases {
                assert_equal $want [tls_try $rs $name] "redis-server, certificate '$name'"
            }
            stop_server $rs
        }
    }
}
r $c CONFIG SET tls-auth-clients yes

test "An expired client certificate is refused with a logged reason" {
    assert_equal refused [tls_try $srv expired]
    wait_for {[string match "*Error accepting a client connection: *certificate verify failed: certificate has expired*" [log_tail $srv 20]]} 5000 [log_tail $srv 20]
    assert_equal refused [tls_try $srv untrusted]
    wait_for {[string match "*certificate verify failed: unable to get local issuer certificate*" [log_tail $srv 20]]} 5000 [log_tail $srv 20]
}

# redis-server closes such a connection with the client's next bytes unread,
# so redis-cli sees a reset or the close depending on timing; cairn drains
# them first, so the close (after the alert) is what it always sees.
test "redis-cli --tls without a client certificate sees the server close (redis-server: close or reset)" {
    if {$cli eq ""} { skip_test "redis-cli is not installed" }
    for {set i 0} {$i < 5} {incr i} {
        catch {exec {*}$cli {*}[tls_cli_args $srv ""] PING 2>@1} out
        assert_match "Error: Server closed the connection*" $out
    }
    if {$ref ne ""} {
        set rs [start_tls_server -binary $ref]
        catch {exec {*}$cli {*}[tls_cli_args $rs ""] PING 2>@1} rout
        stop_server $rs
        assert_match "Error: *" $rout
        assert {[string match "*Server closed the connection*" $rout] ||
                [string match "*Connection reset by peer*" $rout]} $rout
    }
    assert_equal PONG [r $c PING]
}

test "tls-key-file-pass opens an encrypted key" {
    assert_equal OK [r $c CONFIG SET tls-key-file [cert server-pass.key] tls-key-file-pass secret]
    assert_equal ok [tls_try $srv client]
    assert_match "*Unable to update TLS configuration*" \
        [catch {r $c CONFIG SET tls-key-file-pass wrong} e; set e]
    assert_equal secret [lindex [r $c CONFIG GET tls-key-file-pass] 1]
    assert_equal OK [r $c CONFIG SET tls-key-file [cert server.key] tls-key-file-pass ""]
    assert_equal ok [tls_try $srv client]
}

# ---------------------------------------------------------------------------
# Reloading certificates
# ---------------------------------------------------------------------------

# The CN of the certificate a new TLS connection to srv is shown.
proc server_cn {srv} {
    set t [client $srv -tls [tls_opts]]
    set subject [dict get [tls::status $t] subject]
    close_client $t
    regexp {CN\s*=\s*([^,/]+)} $subject -> cn
    return $cn
}

test "CONFIG SET tls-cert-file/tls-key-file switches certificates, connected clients stay" {
    set held {}
    for {set i 0} {$i < 5} {incr i} { lappend held [client $srv -tls [tls_opts]] }
    assert_equal Server-only [server_cn $srv]
    assert_equal OK [r $c CONFIG SET tls-cert-file [cert server2.crt] tls-key-file [cert server2.key]]
    assert_equal Server-two [server_cn $srv]
    foreach t $held { assert_equal PONG [r $t PING] }
    assert_equal OK [r $c CONFIG SET tls-cert-file [cert server.crt] tls-key-file [cert server.key]]
    assert_equal Server-only [server_cn $srv]
    foreach t $held {
        assert_equal OK [r $t SET tls:held ok]
        close_client $t
    }
}

test "Setting the same path again picks up the file replaced on disk" {
    set dir [file join $::cairn(tmp) live]
    file mkdir $dir
    file copy -force [cert server.crt] [file join $dir s.crt]
    file copy -force [cert server.key] [file join $dir s.key]
    r $c CONFIG SET tls-cert-file [file join $dir s.crt] tls-key-file [file join $dir s.key]
    set held [client $srv -tls [tls_opts]]
    assert_equal Server-only [server_cn $srv]
    file copy -force [cert server2.crt] [file join $dir s.crt]
    file copy -force [cert server2.key] [file join $dir s.key]
    # Not re-read until asked.
    assert_equal Server-only [server_cn $srv]
    assert_equal OK [r $c CONFIG SET tls-cert-file [file join $dir s.crt] tls-key-file [file join $dir s.key]]
    assert_equal Server-two [server_cn $srv]
    assert_equal PONG [r $held PING]
    close_client $held
}

test "A bad certificate is refused by CONFIG SET and the old one stays in force" {
    set before [r $c CONFIG GET tls-cert-file]
    set held [client $srv -tls [tls_opts]]
    set junk [file join $::cairn(tmp) junk.crt]
    write_bytes $junk "not a certificate\n"
    foreach bad [list /nonexistent/cert.pem $junk [cert client.key]] {
        assert_error "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - Unable to update TLS configuration. Check server logs." {
            r $c CONFIG SET tls-cert-file $bad
        }
        assert_equal $before [r $c CONFIG GET tls-cert-file]
        assert_equal Server-two [server_cn $srv]
    }
    assert_match "*Failed to update the TLS configuration: Failed to load certificate*" [log_tail $srv 30]
    # A key that does not belong to the certificate.
    assert_error "*Unable to update TLS configuration*" {
        r $c CONFIG SET tls-key-file [cert client.key]
    }
    # A replaced file that became unreadable: the same path is refused too.
    set live [lindex $before 1]
    file copy -force $junk $live
    assert_error "*Unable to update TLS configuration*" { r $c CONFIG SET tls-cert-file $live }
    assert_equal Server-two [server_cn $srv]
    assert_equal PONG [r $held PING]
    close_client $held
    if {$ref ne ""} {
        set rs [start_tls_server -binary $ref]
        set rc [client $rs]
        catch {r $rc CONFIG SET tls-cert-file /nonexistent/cert.pem} rerr
        stop_server $rs
        assert_equal $rerr [catch {r $c CONFIG SET tls-cert-file /nonexistent/cert.pem} e; set e]
    }
    r $c CONFIG SET tls-cert-file [cert server.crt] tls-key-file [cert server.key]
}

test "Certificates reloaded under a running TLS benchmark: no client dropped" {
    if {$bench eq ""} { skip_test "redis-benchmark is not installed" }
    set out [file join $::cairn(tmp) bench.out]
    set pid [exec {*}$bench {*}[tls_cli_args $srv] -t set,get -n 60000 -c 20 -P 4 -q >& $out &]
    set held {}
    for {set i 0} {$i < 10} {incr i} { lappend held [client $srv -tls [tls_opts]] }
    for {set i 0} {$i < 20} {incr i} {
        set which [expr {$i % 2 ? "server" : "server2"}]
        assert_equal OK [r $c CONFIG SET tls-cert-file [cert $which.crt] tls-key-file [cert $which.key]]
        foreach t $held { assert_equal [expr {$i + 1}] [r $t INCR tls:reload:$t] }
        # The same path again reloads too (F_VOLATILE).
        assert_equal OK [r $c CONFIG SET tls-ca-cert-file [cert ca.crt]]
        after 50
    }
    wait_for {![::cairn_h::pid_alive $pid]} 120000 "benchmark did not finish"
    set text [string map [list \r \n] [read_bytes $out]]
    assert_match "*GET: *requests per second*" $text
    assert {![string match "*rror*" $text]} $text
    foreach t $held {
        assert_equal 21 [r $t INCR tls:reload:$t]
        close_client $t
    }
}

test "tls-port can be set at runtime and moved" {
    set s2 [start_server]
    set c2 [client $s2]
    foreach {k v} [lrange [tls_config 0] 2 end] { r $c2 CONFIG SET $k $v }
    set p [::cairn_h::find_port]
    assert_equal OK [r $c2 CONFIG SET tls-port $p]
    dict set s2 tls_port $p
    assert_equal ok [tls_try $s2 client]
    set p2 [::cairn_h::find_port]
    assert_equal OK [r $c2 CONFIG SET tls-port $p2]
    assert_error "*" {client $s2 -tls [tls_opts] -timeout 1000}
    dict set s2 tls_port $p2
    assert_equal ok [tls_try $s2 client]
    assert_equal OK [r $c2 CONFIG SET tls-port 0]
    assert_error "*" {client $s2 -tls [tls_opts] -timeout 1000}
    stop_server $s2
}

test "tls-port with no certificates is refused like redis-server" {
    set s2 [start_server]
    set c2 [client $s2]
    catch {r $c2 CONFIG SET tls-port [::cairn_h::find_port]} err
    assert_equal "ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to update TLS configuration. Check server logs." $err
    assert_equal 0 [lindex [r $c2 CONFIG GET tls-port] 1]
    stop_server $s2
}

test "The tls-* directives show in CONFIG GET with Redis' defaults" {
    set s2 [start_server]
    set c2 [client $s2]
    set got [r $c2 CONFIG GET tls-*]
    stop_server $s2
    if {$ref eq ""} { skip_test "no reference server" }
    set rs [start_server -binary $ref]
    set want [r [client $rs] CONFIG GET tls-*]
    stop_server $rs
    assert_equal [lsort -stride 2 $want] [lsort -stride 2 $got]
}

test "tls-protocols, tls-ciphers and tls-dh-params-file are applied or refused" {
    assert_equal OK [r $c CONFIG SET tls-protocols "TLSv1.3"]
    set t [client $srv -tls [tls_opts]]
    assert_equal TLSv1.3 [dict get [tls::status $t] version]
    close_client $t
    assert_equal OK [r $c CONFIG SET tls-protocols "TLSv1.2"]
    set t [client $srv -tls [tls_opts]]
    assert_equal TLSv1.2 [dict get [tls::status $t] version]
    close_client $t
    assert_error "*Unable to update TLS configuration*" { r $c CONFIG SET tls-protocols "SSLv3" }
    assert_error "*Unable to update TLS configuration*" { r $c CONFIG SET tls-ciphers "NOSUCHCIPHER" }
    assert_equal OK [r $c CONFIG SET tls-ciphers "ECDHE-RSA-AES128-GCM-SHA256" tls-prefer-server-ciphers yes]
    set t [client $srv -tls [tls_opts]]
    assert_equal ECDHE-RSA-AES128-GCM-SHA256 [dict get [tls::status $t] cipher]
    close_client $t
    assert_equal OK [r $c CONFIG SET tls-dh-params-file [cert cairn.dh] tls-ciphers "DHE-RSA-AES256-GCM-SHA384"]
    set t [client $srv -tls [tls_opts]]
    assert_equal DHE-RSA-AES256-GCM-SHA384 [dict get [tls::status $t] cipher]
    close_client $t
    assert_error "*Unable to update TLS configuration*" { r $c CONFIG SET tls-dh-params-file [cert ca.crt] }
    r $c CONFIG SET tls-protocols "" tls-ciphers "" tls-dh-params-file "" tls-prefer-server-ciphers no
    assert_equal ok [tls_try $srv client]
    assert_equal OK [r $c CONFIG SET tls-session-caching no tls-session-cache-size 100 \
            tls-session-cache-timeout 60 tls-replication yes tls-cluster yes]
    assert_equal ok [tls_try $srv client]
    r $c CONFIG SET tls-session-caching yes tls-replication no tls-cluster no
}

test "A TLS-only server (port 0) serves on its tls-port" {
    set tp [::cairn_h::find_port]
    set dir [file join $::cairn(tmp) tlsonly]
    file mkdir $dir
    set argv {}
    foreach {k v} [tls_config $tp] { lappend argv --$k $v }
    set pid [exec $::cairn(server) --port 0 {*}$argv \
            --dir $dir --logfile [file join $dir log] --save "" >& [file join $dir out] &]
    lappend ::cairn_h::servers $pid
    set s2 [dict create host 127.0.0.1 port 0 tls_port $tp pid $pid dir $dir log [file join $dir log]]
    wait_for {[tls_try $s2 client] eq "ok"} 10000 [log_tail $s2]
    assert_match "*Ready to accept connections tls*" [log_tail $s2 20]
    assert {![string match "*connections tcp*" [log_tail $s2 20]]}
    stop_server $s2
}

test "The server's own TLS state is clean (sanitizers)" {
    set t [client $srv -tls [tls_opts]]
    r $t SET tls:last 1
    close_client $t
    stop_server $srv
    assert_equal "" [sanitizer_report $srv]
}

finish
