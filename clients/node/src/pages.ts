// Keyset paging: the next page is asked with the previous page's next_page_token until it is
// empty. The server binds each token to the memory, the filters and the caller, so the request
// is repeated unchanged but for the token.

export async function* walkPages<
  Request extends { readonly pageToken?: string },
  Page extends { readonly nextPageToken: string },
>(
  read: (request: Request) => Promise<Page>,
  first: Request,
): AsyncGenerator<Page, void, undefined> {
  let request = first;
  for (;;) {
    const page = await read(request);
    yield page;
    if (!page.nextPageToken) {
      return;
    }
    request = { ...request, pageToken: page.nextPageToken };
  }
}
