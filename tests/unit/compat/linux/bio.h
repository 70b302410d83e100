/* SPDX-License-Identifier: GPL-2.0 */
/* Stub for the fc_compat.h syntax check (mk/buildcheck.mk). */
struct bio;
enum { BIO_QOS_THROTTLED, BIO_QOS_MERGED };
void bio_clear_flag(struct bio *bio, unsigned int bit);
void bio_endio(struct bio *bio);
