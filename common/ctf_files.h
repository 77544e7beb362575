/* SPDX-License-Identifier: MIT */
/*
 * The files of a bundle's LTTng trace (ctf/: per traced process a
 * directory holding `metadata`, one stream file per CPU and index/NAME.idx
 * per stream), checked before libbabeltrace2 reads them. babeltrace2 2.0
 * trusts them: a FIFO among them blocks it, one flipped byte of an index
 * makes its ctf plugin abort the process (an assertion on a packet offset
 * beyond its stream), and a flipped byte of a stream is mostly decoded as
 * another value without a word. So:
 *
 * - at capture, every file of ctf/ is hashed into the manifest
 *   (`ctf.files = N`, `ctf.I = HASH SIZE PATH`, PATH relative to ctf/;
 *   bundle format 3 on), and readers check each one's size and hash and
 *   that no file was added: a changed, missing, emptied or added file is
 *   an error naming it;
 * - in every bundle, with hashes or without (older formats, the capture's
 *   own reading before the manifest exists), each file must be a regular
 *   one, each index must describe its stream exactly (header, packets
 *   back to back, sizes in whole bytes, the stream's length) and each
 *   packetized metadata file must be whole packets, so that nothing
 *   babeltrace2 cannot survive reaches it.
 */
#ifndef GM_CTF_FILES_H
#define GM_CTF_FILES_H

#include <stddef.h>
#include <stdint.h>

struct kvfile;

/* The manifest keys: the count and each file's line. */
#define GM_CTF_FILES_KEY "ctf.files"
#define GM_CTF_FILE_KEY_FMT "ctf.%zu"

/*
 * Hash every file under @bundle/ctf (sorted by path) into manifest @m:
 * GM_CTF_FILES_KEY and one "HASH SIZE PATH" line per file. Returns 0, or
 * -1 with a cause naming the file that could not be read.
 */
int gm_ctf_files_record(const char *bundle, struct kvfile *m);

/*
 * Check the files under @bundle/ctf: each regular, each index consistent
 * with its stream (gm_ctf_index_check()), no stream emptied or removed
 * under its index, each metadata file whole (gm_ctf_metadata_check());
 * and, when @m (may be NULL) holds the capture's hashes,
 * each listed file present with its size and hash and no other file
 * there. *@verified (may be NULL) is set to the number of files whose
 * hash was checked (0: the bundle has no hashes). Returns 0, or -1 with a
 * cause naming the first file that fails ("trace file 'ctf/...'").
 */
int gm_ctf_files_verify(const char *bundle, const struct kvfile *m,
			size_t *verified);

/*
 * Check LTTng index @idx (@len bytes, file @name for messages) against a
 * stream file of @stream_size bytes: magic, version 1, whole entries of at
 * least the 7 words of version 1.0, each packet a whole number of bytes,
 * starting where the one before ended, holding no more content than its
 * size, ending no earlier than it begins, the packets adding up to the
 * stream. Returns 0, or -1 with a cause naming @name and what is wrong.
 */
int gm_ctf_index_check(const unsigned char *idx, size_t len, const char *name,
		       uint64_t stream_size);

/*
 * Check the metadata file @meta (@len bytes, @name for messages): plain
 * text passes (babeltrace2 parses it); a packetized one (its magic
 * 0x75D11D57 in either byte order) must be whole packets, each with its
 * header, content of whole bytes no shorter than the header and no
 * longer than the packet, the packets ending with the file. babeltrace2
 * 2.0.4 reads a packet that runs past the end of the file for ever.
 * Returns 0, or -1 with a cause naming @name and the packet.
 */
int gm_ctf_metadata_check(const unsigned char *meta, size_t len,
			  const char *name);

/*
 * The stream file of the trace directory @trace whose packets carry the
 * stream instance id @instance (the number babeltrace2 ends its name of
 * a stream with, "UUID | CLASS | INSTANCE"), found through the indexes
 * (their version 1.1 entries hold it): "TRACE/NAME", newly allocated, or
 * NULL when no index says. For naming the file a decoding error is in.
 */
char *gm_ctf_stream_file(const char *trace, uint64_t instance);

#endif
