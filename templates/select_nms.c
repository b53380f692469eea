/* select_nms.c - ONNX NonMaxSuppression (opset 10/11) over boxes [batches, n, 4] and scores
 * [batches, classes, n].  Per batch and class: the boxes whose score passes score_thr
 * (strictly greater; every box when has_thr is 0), by score from the highest (equal scores:
 * the lower box index first), each kept unless its IoU with a box already kept for that
 * class is above iou_thr, until max_out are kept.  Boxes are [y1, x1, y2, x2] corners in any
 * order (center 0) or [x_center, y_center, width, height] (center 1); an IoU whose union is
 * not positive is 0 (computed in T, as ONNX Runtime does).  Writes [batch, class, box] rows to sel in that order and returns their
 * count, at most batches x classes x min(max_out, n); rows past cap are counted, not
 * written.  scr: 3 n int64_t. */
#ifndef O2C_TEMPLATE
#include "o2c_template.h"
#endif

/* the box's corners, ordered: lo <= hi on each axis */
static void nms_corners_T(const T *b, int center, T *y0, T *x0, T *y1, T *x1) {
    T a, c, p, q;
    if (center) {
        a = b[1] - b[3] / 2;
        c = b[1] + b[3] / 2;
        p = b[0] - b[2] / 2;
        q = b[0] + b[2] / 2;
    } else {
        a = b[0];
        c = b[2];
        p = b[1];
        q = b[3];
    }
    *y0 = a < c ? a : c;
    *y1 = a < c ? c : a;
    *x0 = p < q ? p : q;
    *x1 = p < q ? q : p;
}

static T nms_iou_T(const T *a, const T *b, int center) {
    T ay0, ax0, ay1, ax1, by0, bx0, by1, bx1;
    nms_corners_T(a, center, &ay0, &ax0, &ay1, &ax1);
    nms_corners_T(b, center, &by0, &bx0, &by1, &bx1);
    T h = (ay1 < by1 ? ay1 : by1) - (ay0 > by0 ? ay0 : by0);
    T w = (ax1 < bx1 ? ax1 : bx1) - (ax0 > bx0 ? ax0 : bx0);
    if (h <= 0 || w <= 0)
        return 0;
    T inter = h * w;
    T uni = (ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - inter;
    return uni > 0 ? inter / uni : 0;
}

static int64_t nms_T(const T *boxes, const T *scores, int64_t batches, int64_t classes, int64_t n,
                     int64_t max_out, T iou_thr, T score_thr, int has_thr, int center,
                     int64_t *sel, int64_t cap, int64_t *scr) {
    int64_t count = 0;
    int64_t *cand = scr, *tmp = scr + n, *kept = scr + 2 * n;
    if (max_out <= 0)
        return 0;
    for (int64_t b = 0; b < batches; b++)
        for (int64_t c = 0; c < classes; c++) {
            const T *s = scores + (b * classes + c) * n;
            const T *bx = boxes + b * n * 4;
            int64_t m = 0, nk = 0;
            for (int64_t i = 0; i < n; i++)
                if (!has_thr || s[i] > score_thr)
                    cand[m++] = i;
            /* stable merge sort of cand by score, highest first */
            for (int64_t w = 1; w < m; w *= 2) {
                for (int64_t lo = 0; lo < m; lo += 2 * w) {
                    int64_t mid = lo + w < m ? lo + w : m, hi = lo + 2 * w < m ? lo + 2 * w : m;
                    int64_t i = lo, j = mid, k = lo;
                    while (i < mid && j < hi)
                        tmp[k++] = s[cand[j]] > s[cand[i]] ? cand[j++] : cand[i++];
                    while (i < mid)
                        tmp[k++] = cand[i++];
                    while (j < hi)
                        tmp[k++] = cand[j++];
                }
                for (int64_t i = 0; i < m; i++)
                    cand[i] = tmp[i];
            }
            for (int64_t i = 0; i < m && nk < max_out; i++) {
                const T *box = bx + cand[i] * 4;
                int keep = 1;
                for (int64_t k = 0; k < nk && keep; k++)
                    keep = !(nms_iou_T(box, bx + kept[k] * 4, center) > iou_thr);
                if (!keep)
                    continue;
                kept[nk++] = cand[i];
                if (count >= cap) {
                    count++;
                    continue;
                }
                sel[count * 3] = b;
                sel[count * 3 + 1] = c;
                sel[count * 3 + 2] = cand[i];
                count++;
            }
        }
    return count;
}
